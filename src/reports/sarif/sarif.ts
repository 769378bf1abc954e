// matrix.sarif: the run's findings as SARIF 2.1.0 (what GitHub code scanning takes), one result per finding
// and cell, located at the package's package.json or the config as repository paths. Pure: the run in, text out.

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Location, Log, Result, Run } from 'sarif';
import type { RunResult } from '../../results/types.js';
import { SNAPSHOT_FILE } from '../../results/surface.js';
import { findingsOf, type Finding } from './sarif-findings.js';
import { knownRules, STATIC_RULES, toDescriptor, type RuleDef } from './sarif-rules.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const INFORMATION_URI = 'https://www.npmjs.com/package/mcp-matrix';
/** The partial fingerprint's name: bump its version if what it hashes changes. */
const FINGERPRINT = 'mcpMatrixFinding/v1';

interface Grouped {
  first: Finding;
  rule: RuleDef;
  variants: string[];
}

/** The run as a SARIF 2.1.0 log (stable bytes: 2-space indent, trailing newline). */
export function renderSarif(run: RunResult): string {
  const rules = knownRules();
  const groups = new Map<string, Grouped>();
  for (const f of findingsOf(run)) {
    const rule = typeof f.rule === 'string' ? STATIC_RULES.find((r) => r.id === f.rule)! : f.rule;
    if (!rules.some((r) => r.id === rule.id)) rules.push(rule);
    const key = JSON.stringify([rule.id, f.cell?.cell, f.level, f.text, f.where]);
    const group = groups.get(key);
    if (group) group.variants.push(f.cell!.id);
    else groups.set(key, { first: f, rule, variants: f.cell ? [f.cell.id] : [] });
  }
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const sarifRun: Run = {
    tool: {
      driver: {
        name: 'mcp-matrix',
        version: run.tool.version,
        semanticVersion: run.tool.version,
        informationUri: INFORMATION_URI,
        rules: rules.map(toDescriptor),
      },
    },
    invocations: [
      {
        executionSuccessful: run.verdict === 'passed' || run.verdict === 'failed',
        startTimeUtc: run.startedAt,
        endTimeUtc: run.finishedAt,
        exitCode: run.exitCode,
      },
    ],
    results: [...groups.values()].map((g, i, all) => {
      // Two findings of one rule in one cell (two environment problems) keep distinct fingerprints.
      const same = all.slice(0, i).filter((o) => o.rule.id === g.rule.id && o.first.cell?.cell === g.first.cell?.cell).length;
      return result(run, g, index.get(g.rule.id)!, same);
    }),
    properties: {
      package: run.plan.package,
      tarballSha512: run.plan.tarball.sha512,
      configHash: run.plan.configHash,
      verdict: run.verdict,
    },
  };
  const log: Log = { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [sarifRun] };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function result(run: RunResult, g: Grouped, ruleIndex: number, ordinal: number): Result {
  const { first: f, variants } = g;
  const cell = f.cell;
  const who = cell
    ? variants.length === 1 && variants[0] === cell.cell
      ? `cell ${cell.cell} (SDK ${cell.version})`
      : `cell ${cell.cell} (SDK ${cell.version}), variant${variants.length > 1 ? 's' : ''} ${variants.join(', ')}`
    : undefined;
  return {
    ruleId: g.rule.id,
    ruleIndex,
    level: f.level,
    message: { text: who ? `${who}: ${f.text}` : f.text },
    locations: [location(run, f, variants)],
    partialFingerprints: { [FINGERPRINT]: fingerprint([g.rule.id, cell?.cell ?? '', ...variants, String(ordinal), f.cell ? '' : f.text]) },
    properties: {
      ...(cell ? { cell: cell.cell, variants, pin: cell.pin, sdkVersion: cell.version, repro: cell.repro } : {}),
      ...(f.phase ? { phase: f.phase } : {}),
      ...(f.step ? { step: f.step } : {}),
      // The rule's helpUri is the catalogue's revision; this finding's is the one its cell negotiated.
      ...(f.specUri ? { helpUri: f.specUri } : {}),
    },
  };
}

function location(run: RunResult, f: Finding, variants: string[]): Location {
  const config = run.plan.configFile ?? 'matrix.config.ts';
  const pkg = run.plan.packageDir;
  const inPackage = (file: string) => path.posix.normalize(`${pkg ?? '.'}/${file}`);
  const where = f.where;
  // Without the package's directory (a config that names a tarball), a finding about it points at the config.
  const uri =
    pkg !== undefined && typeof where === 'object'
      ? inPackage(where.file)
      : pkg !== undefined && where === 'package'
        ? inPackage('package.json')
        : where === 'snapshot'
          ? SNAPSHOT_FILE
          : config;
  // Repository paths where the run knew where the config sits in its checkout (code scanning reads them from the root).
  const root = run.plan.configDir;
  return {
    physicalLocation: {
      artifactLocation: { uri: root === undefined ? uri : path.posix.normalize(`${root}/${uri}`) },
      // A finding about the file as a whole (package.json, the config) anchors at its first line.
      region: { startLine: typeof where === 'object' && pkg !== undefined ? where.line : 1 },
    },
    ...(f.cell ? { logicalLocations: variants.map((v) => ({ name: v, fullyQualifiedName: `${f.cell!.cell}/${v}`, kind: 'module' })) } : {}),
  };
}

function fingerprint(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
