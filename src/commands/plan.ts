// `mcp-matrix plan`: what would run, resolved against the registry; installs nothing.
import path from 'node:path';
import type { Logger } from '../logger.js';
import { preparePlan, type PrepareOptions } from '../orchestrator/prepare.js';
import { cellHasAxes, type Plan, type PlannedVariant } from '../plan/plan.js';
import type { Failure } from '../util/result.js';
import { freezePlan } from '../plan/frozen.js';
import { describeExpansion, lockstepLines } from '../plan/expansion.js';

/** GitHub Actions runs at most 256 jobs per matrix (documented limit of jobs.<id>.strategy.matrix). */
export const MATRIX_JOB_LIMIT = 256;

/** The plan's attempt: GITHUB_RUN_ATTEMPT under Actions, 1 elsewhere. */
export function runAttempt(env: NodeJS.ProcessEnv): number {
  const n = Number(env.GITHUB_RUN_ATTEMPT);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** `plan --json` fails here, at plan, never later: one job per variant, at most MATRIX_JOB_LIMIT. */
export function matrixLimit(variants: number, plan: Pick<Plan, 'cells'>): Failure | undefined {
  return variants > MATRIX_JOB_LIMIT ? { kind: 'usage', message: tooManyVariants(variants, plan) } : undefined;
}

/** What to do when the fan-out would exceed the matrix limit: the largest factors named. */
export function tooManyVariants(count: number, plan: Pick<Plan, 'cells'>): string {
  const majors = [...new Set(plan.cells.map((c) => c.major))];
  const split =
    majors.length > 1
      ? `split the config by SDK major (one config per major: ${majors.map((m) => `${m}.x`).join(', ')}), each its own workflow call with \`config:\``
      : 'split the cells over two configs, each its own workflow call with `config:`';
  return `the plan has ${count} variants, more than the ${MATRIX_JOB_LIMIT} jobs a GitHub Actions matrix can run (one job per variant): ${split}, or shorten the client or Node axis (${describeExpansion(plan)})`;
}

export async function planCommand(options: PrepareOptions & { json: boolean }, log: Logger): Promise<number | Failure> {
  const prepared = await preparePlan(options);
  if (!prepared.ok) return prepared.error;
  const { plan, registry } = prepared.value;
  if (options.json) {
    const json = planJson(plan);
    // The fan-out is one job per variant: past GitHub's matrix limit the workflow could never start them all.
    const tooMany = matrixLimit(json.include.length, plan);
    if (tooMany) {
      registry.cancel();
      return tooMany;
    }
    log.info(
      JSON.stringify({
        ...json,
        source: sourceJson(plan, options.cwd),
        // The run attempt that made this plan: merge drops pieces of older attempts (re-run all jobs plans again).
        attempt: runAttempt(process.env),
        frozen: freezePlan(plan),
      }),
    );
  } else {
    const axes = plan.cells.some(cellHasAxes);
    const variants = plan.cells.reduce((n, c) => n + c.variants.length, 0);
    log.info(
      `${plan.package.name}@${plan.package.version} · bin ${plan.bin.name} · ${plan.cells.length} cell(s)${axes ? ` · ${variants} variant(s)` : ''} · registry ${await registry.url()} (${registry.lookups} look-ups)`,
    );
    for (const c of plan.cells) {
      log.info(
        `  ${c.id.padEnd(12)} ${c.pin === c.version ? c.pin : `${c.pin} → ${c.version}`}${c.role ? `  (${c.role})` : ''}${c.allowedToFail ? '  [allowed to fail]' : ''}`,
      );
      log.info(
        `  ${''.padEnd(12)} installs ${Object.entries(c.installSet)
          .map(([n, v]) => `${n}@${v}`)
          .join(' ')}`,
      );
      if (cellHasAxes(c)) {
        log.info(`  ${''.padEnd(12)} ${c.variants.length} variant(s):`);
        for (const v of c.variants) log.info(`  ${''.padEnd(14)} ${v.id}  ${describeVariant(v)}`);
      }
    }
    if (axes) log.info(describeExpansion(plan));
  }
  for (const { level, line } of lockstepLines(plan)) log[level](line);
  return plan.lockstep.some((f) => f.level === 'error') && plan.config.lockstep === 'error' ? 1 : 0;
}

/** `client @modelcontextprotocol/sdk@1.0.0 (1.0.0) · node 22.11.0 (22)`: what a variant runs with. */
export function describeVariant(v: PlannedVariant): string {
  const client = v.client
    ? `client ${v.client.package}@${v.client.version}${v.client.pin !== v.client.version ? ` (${v.client.pin})` : ''}`
    : "the cell's own client";
  const node = v.node ? `node ${v.node.version}${v.node.spec !== v.node.version ? ` (${v.node.spec})` : ''}` : "the host's node";
  return `${client} · ${node}`;
}

/** What the CI's pack job packs (a directory) or passes on (a tarball), relative to the working directory. */
export function sourceJson(plan: Plan, cwd: string): { directory: string } | { tarball: string } {
  const s = plan.config.source;
  return s.kind === 'directory' ? { directory: path.relative(cwd, s.dir) || '.' } : { tarball: path.relative(cwd, s.file) };
}

/** The shape a GitHub Actions `strategy.matrix` takes through `fromJSON`: `{ include: [...] }`. */
export function planJson(plan: Plan) {
  return {
    configHash: plan.hash,
    package: { name: plan.package.name, version: plan.package.version },
    // One job per variant; without axes a variant is its cell, and the entry is what it always was.
    include: plan.cells.flatMap((c) =>
      c.variants.map((v) => ({
        id: v.id,
        ...(cellHasAxes(c) ? { cell: c.id } : {}),
        pin: c.pin,
        version: c.version,
        major: c.major,
        role: c.role ?? '',
        allowedToFail: c.allowedToFail,
        installSet: Object.entries(c.installSet)
          .map(([n, v]) => `${n}@${v}`)
          .join(' '),
        ...(v.client
          ? { client: { id: v.client.id, pin: v.client.pin, major: v.client.major, version: v.client.version, package: v.client.package } }
          : {}),
        // The exact release: a fan-out job gives it to actions/setup-node, so the harness runs on the host's binary.
        ...(v.node ? { node: v.node.version, nodeSpec: v.node.spec } : {}),
      })),
    ),
  };
}
