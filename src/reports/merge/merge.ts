// Fan-in: the single-variant runs of ONE plan (CI fan-out, `run --cell …`) merged into one run,
// rendered exactly as if the whole matrix had run in one process. Refuses anything that would make
// the evidence lie: pieces of another plan or tarball, missing variants, variants twice, unplanned ones.

import { isDeepStrictEqual } from 'node:util';
import type { CellResult, RunResult } from '../../results/types.js';
import { surfaceCheck, surfaceFailures } from '../../results/surface.js';
import { compareRecorded, parityFailures } from '../../results/parity.js';
import { judgeSplitSteps } from '../../judge/split-steps.js';
import { auditRun, decideRun } from '../../judge/verdict.js';
import { plannedVariants } from '../../results/variants.js';
import { defined } from '../../contract/fields.js';

export interface MergePiece {
  /** Where the piece came from (named in errors). */
  file: string;
  run: RunResult;
}

/**
 * `exitCode` 2: a piece contradicts itself or its plan (edited by hand or by a broken producer);
 * 1: the pieces are honest but do not make up the plan (missing, duplicated, foreign cells).
 */
export type MergeResult = { ok: true; run: RunResult } | { ok: false; errors: string[]; exitCode: 1 | 2 };

/** The plan job's frozen plan (`merge --plan`): every piece must carry its hash. */
export interface ExpectedPlan {
  /** As shown in messages (`plan.json`). */
  file: string;
  hash: string;
  cells: readonly { id: string; pin: string; variants: readonly { id: string }[] }[];
}

export function mergeResults(input: readonly MergePiece[], expected?: ExpectedPlan): MergeResult {
  const pieces = inPlanOrder(input);
  const [first] = pieces;
  if (!first && expected)
    return {
      ok: false,
      errors: expected.cells.flatMap((c) =>
        c.variants.map(
          (v) =>
            `${rowName(v.id, c.id)} (pin ${c.pin}) has no evidence: no piece contains it (no cell job uploaded results). The \`mcp-matrix run --cell ${v.id}\` run produced no results.json; see that job's log.`,
        ),
      ),
      exitCode: 1,
    };
  if (!first) return { ok: false, errors: ['no results to merge: pass the results.json of every cell of the plan.'], exitCode: 1 };
  const { selected: _selected, ...plan } = first.run.plan;

  // A stored verdict is never trusted: every piece must agree with its own phases and with the plan.
  const tampered = pieces.flatMap((piece) => [
    ...auditRun(piece.run).map((p) => `${piece.file}: ${p}; refusing to merge it (re-run the cell to regenerate it).`),
    ...(piece !== first && piece.run.plan.configHash === plan.configHash && !isDeepStrictEqual(piece.run.plan.cells, plan.cells)
      ? [`${piece.file}: its plan's cells differ from ${first.file}'s although both carry configHash ${plan.configHash}; one was edited.`]
      : []),
  ]);
  if (tampered.length > 0) return { ok: false, errors: tampered, exitCode: 2 };
  const errors: string[] = [];

  for (const piece of expected ? pieces : []) {
    if (piece.run.plan.configHash !== expected!.hash)
      errors.push(
        `${piece.file}: belongs to another plan (configHash ${piece.run.plan.configHash}, but ${expected!.file} has ${expected!.hash}); its cell job did not run \`run --plan ${expected!.file}\`, or ran another plan's file.`,
      );
  }
  for (const piece of pieces.slice(1)) {
    const other = piece.run.plan;
    if (other.configHash !== plan.configHash && !expected) {
      errors.push(
        `${piece.file}: belongs to another plan (configHash ${other.configHash}, but ${first.file} has ${plan.configHash}); every piece must come from the same config and resolved pins.`,
      );
    }
    if (other.tarball.sha512 !== plan.tarball.sha512) {
      errors.push(
        `${piece.file}: tested another tarball (sha512 ${other.tarball.sha512}, but ${first.file} has ${plan.tarball.sha512}); every cell must install the same packed tarball (pass it with --tarball).`,
      );
    }
  }

  // Pieces are variants (a fan-out job runs one variant); without axes a variant is its cell.
  const rows = plannedVariants(plan);
  const planned = new Map(rows.map((row) => [row.variant.id, row]));
  const found = new Map<string, { file: string; cell: CellResult }>();
  for (const piece of pieces) {
    for (const cell of piece.run.cells) {
      if (!planned.has(cell.id)) {
        errors.push(
          `${piece.file}: ${rowName(cell.id, cell.cell)} (pin ${cell.pin}) is not in the plan (planned: ${[...planned.keys()].join(', ')}).`,
        );
        continue;
      }
      const seen = found.get(cell.id);
      if (seen) {
        errors.push(
          `${rowName(cell.id, cell.cell)} appears twice: in ${seen.file} and in ${piece.file}; pass one result per ${unit(cell.id, cell.cell)}.`,
        );
        continue;
      }
      found.set(cell.id, { file: piece.file, cell });
    }
  }
  for (const { cell: ref, variant } of rows) {
    if (!found.has(variant.id)) {
      errors.push(
        `${rowName(variant.id, ref.id)} (pin ${ref.pin}) has no evidence: no piece contains it. The \`mcp-matrix run --cell ${variant.id}\` run produced no results.json (or it was not passed to merge); re-run that ${unit(variant.id, ref.id)}.`,
      );
    }
  }
  if (errors.length > 0) return { ok: false, errors, exitCode: 1 };

  // A step that failed on some rows only is judged across the merged rows (each piece saw its own).
  const cells = judgeSplitSteps(rows.map(({ variant }) => (found.get(variant.id) as { cell: CellResult }).cell));
  const runs = pieces.map((p) => p.run);
  const startedAt = runs.map((r) => r.startedAt).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  const finishedAt = runs.map((r) => r.finishedAt).reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
  const interrupted = runs.some((r) => r.interrupted);
  const lockstepErrors = [...new Set(runs.flatMap((r) => r.lockstepErrors ?? []))];
  // Every piece of one fan-out is judged with the same baseline file: the first piece's carries over.
  const baseline = runs.find((r) => r.baseline)?.baseline;
  // Parity is a claim across cells: recomputed over the merged cells; snapshot drift is per cell.
  const surfaced = runs.find((r) => r.surface)?.surface;
  const drift = [...new Set(runs.flatMap((r) => r.surface?.drift ?? []))];
  const hasSnapshot = runs.some((r) => r.surface?.drift);
  const surface = surfaced && surfaceCheck(cells, surfaced.allow, hasSnapshot ? drift : undefined);
  // Recorded-value parity likewise; its snapshot drift is per row, kept from the pieces.
  const paritied = runs.find((r) => r.parity)?.parity;
  const parityDrift = [...new Set(runs.flatMap((r) => r.parity?.drift ?? []))];
  const parity = paritied && {
    ...compareRecorded(cells, paritied.allow),
    ...(runs.some((r) => r.parity?.drift) ? { drift: parityDrift } : {}),
  };
  const span = Date.parse(finishedAt) - Date.parse(startedAt);
  const versions = [...new Set(runs.map((r) => r.tool.version))];
  const mixed = versions.length > 1 ? [`pieces were produced by different mcp-matrix versions: ${versions.join(', ')}`] : [];
  const warnings = [...new Set([...runs.flatMap((r) => r.warnings), ...mixed])];
  return {
    ok: true,
    run: {
      schemaVersion: first.run.schemaVersion,
      tool: first.run.tool,
      startedAt,
      finishedAt,
      durationMs: Number.isFinite(span) && span >= 0 ? span : Math.max(...runs.map((r) => r.durationMs)),
      interrupted,
      plan,
      host: first.run.host,
      cells,
      ...decideRun(cells, interrupted, {
        expected: rows.length,
        lockstepErrors,
        ...defined({ baseline: baseline?.entries }),
        surfaceFailures: surfaceFailures(surface),
        parityFailures: parityFailures(parity),
      }),
      warnings,
      ...(lockstepErrors.length > 0 ? { lockstepErrors } : {}),
      ...defined({ baseline, surface, parity }),
    },
  };
}

/**
 * Pieces sorted by the plan position of their first cell, then by file name, so that the merged run
 * (host, tool, warnings order) does not depend on the order the pieces were given in.
 */
function inPlanOrder(pieces: readonly MergePiece[]): MergePiece[] {
  const position = (piece: MergePiece): number => {
    const ids = plannedVariants(piece.run.plan).map((row) => row.variant.id);
    const indexes = piece.run.cells.map((c) => ids.indexOf(c.id)).filter((i) => i >= 0);
    return indexes.length > 0 ? Math.min(...indexes) : Number.MAX_SAFE_INTEGER;
  };
  return [...pieces].sort((a, b) => position(a) - position(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** `cell v1-latest` without axes (the variant is the cell); `variant latest-2~client-1.0.0 of cell latest-2` with them. */
function rowName(id: string, cell: string): string {
  return id === cell ? `cell ${id}` : `variant ${id} of cell ${cell}`;
}

function unit(id: string, cell: string): string {
  return id === cell ? 'cell' : 'variant';
}
