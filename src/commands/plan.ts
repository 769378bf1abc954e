// `mcp-matrix plan`: what would run, resolved against the registry; installs nothing.
import path from 'node:path';
import type { Logger } from '../logger.js';
import { preparePlan, type PrepareOptions } from '../orchestrator/prepare.js';
import type { Plan } from '../plan/plan.js';
import type { Failure } from '../util/result.js';

export async function planCommand(options: PrepareOptions & { json: boolean }, log: Logger): Promise<number | Failure> {
  const prepared = await preparePlan(options);
  if (!prepared.ok) return prepared.error;
  const { plan, registry } = prepared.value;
  if (options.json) {
    log.info(JSON.stringify({ ...planJson(plan), source: sourceJson(plan, options.cwd) }));
  } else {
    log.info(
      `${plan.package.name}@${plan.package.version} · bin ${plan.bin.name} · ${plan.cells.length} cell(s) · registry ${await registry.url()} (${registry.lookups} look-ups)`,
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
    }
  }
  for (const f of plan.lockstep)
    (f.level === 'error' ? log.error : log.warn)(`${f.level === 'error' ? 'lockstep error: ' : 'lockstep: '}${f.message}`);
  return plan.lockstep.some((f) => f.level === 'error') && plan.config.lockstep === 'error' ? 1 : 0;
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
    include: plan.cells.map((c) => ({
      id: c.id,
      pin: c.pin,
      version: c.version,
      major: c.major,
      role: c.role ?? '',
      allowedToFail: c.allowedToFail,
      installSet: Object.entries(c.installSet)
        .map(([n, v]) => `${n}@${v}`)
        .join(' '),
    })),
  };
}
