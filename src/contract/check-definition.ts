// What a sub-check is: its id, phase, the requirement it tests and where, its default level. The catalogue
// (catalogue.ts) lists them; checks.ts holds the rules that read them.

import type { CheckLevel, Requirement } from '../results/types.js';

/** `require` fails the phase; `warn` is shown and never fails; `off` is not run (recorded as skipped). */
export const CHECK_LEVELS: readonly CheckLevel[] = ['require', 'warn', 'off'];

/** The phases whose results record sub-checks. */
export type CheckPhase = 'environment' | 'stdio' | 'http' | 'leaks';

export interface CheckDefinition {
  id: string;
  /** The phase whose config (`<phase>.checks`) sets its level and whose result records it. */
  phase: CheckPhase;
  /** What it proves, one line (docs/config.md, the reports' check table). */
  title: string;
  /**
   * The requirement's strength in the source it cites (`MUST`, `SHOULD`), or `SDK default` where no spec makes it
   * one; absent: the harness's own expectation (e.g. the configured steps).
   */
  requirement?: Requirement;
  /** Where the requirement is written: `MCP 2025-11-25` · `basic/transports#security-warning`, `RFC 6750` · `3`. */
  spec?: { revision: string; section: string };
  /**
   * An MCP requirement's history, from the spec text of each revision: `since`, the first revision that has it;
   * `until`, the first that no longer has it; `what`, its name in a not-applicable message; `changes`, later changes
   * of strength. A cell that negotiated a revision without it records the check `not-applicable` (byRevision).
   */
  revisions?: { since: string; until?: string; what: string; changes?: { revision: string; text: string }[] };
  /**
   * The default level: one level, or one for an endpoint a token guards (`guarded`: any `auth` but
   * `none`) and one for an open endpoint. A MUST defaults to `require`, a SHOULD to `warn`; any other default is
   * a harness policy, named in `policy` (docs/phases.md, "Where each check comes from").
   */
  defaultLevel: CheckLevel | { guarded: CheckLevel; open: CheckLevel };
  /** The harness policy that sets the default level, when it is not the keyword's rule. */
  policy?: string;
}
