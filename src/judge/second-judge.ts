// Two judges of one requirement: a conformance check names our own check of it in `sameAs`; where one passed and
// the other failed, both say so. Only messages and details change, so each judge's verdict stays its own.
import { withDetails } from '../contract/fields.js';
import type { Disagreement, PhaseResult } from '../results/types.js';

export type { Disagreement };

const JUDGED = new Set(['passed', 'failed']);

export function compareJudges(phases: PhaseResult[]): PhaseResult[] {
  const ours = new Map<string, { phase: string; outcome: string }>();
  for (const p of phases) for (const c of p.checks ?? []) if (!c.judge) ours.set(c.id, { phase: p.phase, outcome: c.outcome });
  return phases.map((p) => {
    const found: Disagreement[] = [];
    const checks = (p.checks ?? []).map((c) => {
      const own = c.judge && c.sameAs ? ours.get(c.sameAs) : undefined;
      if (!own || !JUDGED.has(own.outcome) || !JUDGED.has(c.outcome) || own.outcome === c.outcome) return c;
      const d = { theirs: `${p.phase} › ${c.id}`, theirOutcome: c.outcome, ours: `${own.phase} › ${c.sameAs}`, ourOutcome: own.outcome };
      found.push(d);
      return { ...c, message: `${c.message}; the judges differ: mcp-matrix's own ${d.ours} ${d.ourOutcome}` };
    });
    if (found.length === 0) return p;
    const note = `judged differently: ${found.map((d) => `${d.theirs} ${d.theirOutcome}, ${d.ours} ${d.ourOutcome}`).join('; ')}`;
    return withDetails({ ...p, checks, message: p.message ? `${p.message}; ${note}` : note }, { disagreements: found });
  });
}
