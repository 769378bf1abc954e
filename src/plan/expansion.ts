// What a plan expands to, in words: its variants and installs, and its lockstep findings as printed lines.
import type { Plan } from './plan.js';

/** `16 variant(s) = 4 cell(s) × 2 client(s) × 2 node(s); installs: 4 cell(s), 2 client(s), 2 node runtime(s)`. */
export function describeExpansion(plan: Pick<Plan, 'cells'>): string {
  const variants = plan.cells.flatMap((c) => c.variants);
  const clients = new Set(variants.flatMap((v) => (v.client ? [v.client.id] : [])));
  const nodes = new Set(variants.flatMap((v) => (v.node ? [v.node.version] : [])));
  const uniform = plan.cells.every((c) => c.variants.length === plan.cells[0]!.variants.length);
  const factors = [
    `${plan.cells.length} cell(s)`,
    ...(clients.size ? [`${clients.size} client(s)`] : []),
    ...(nodes.size ? [`${nodes.size} node(s)`] : []),
  ];
  return `${variants.length} variant(s)${uniform ? ` = ${factors.join(' × ')}` : ''}; installs: ${plan.cells.length} server install(s), ${clients.size} client install(s), ${nodes.size} node runtime(s); a variant adds driver runs, never installs`;
}

/** Each lockstep finding as printed: an error (`lockstep: 'error'`) or a warning. */
export function lockstepLines(plan: Pick<Plan, 'lockstep'>): { level: 'error' | 'warn'; line: string }[] {
  return plan.lockstep.map((f) =>
    f.level === 'error' ? { level: 'error', line: `lockstep error: ${f.message}` } : { level: 'warn', line: `lockstep: ${f.message}` },
  );
}
