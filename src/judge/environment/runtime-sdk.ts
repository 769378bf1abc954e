// The runtime half of the environment phase, judged after the driver returns: the SDK the stdio and http
// servers loaded (the probe's report in their phase details) must be the cell's pinned copy and no other.
import type { EnvironmentEvidence, PhaseResult, PhaseResultOf, SdkRuntime } from '../../results/types.js';
import { decideCell } from '../verdict.js';

export interface RuntimeSdkInput {
  installSet: Record<string, string>;
  /** The package the major's range is declared on: the copy named when a server loaded none. */
  primary: string;
  /** The bin file inside the package, for the message when the probe could not load. */
  binFile: string;
  enabled: { stdio: boolean; http: boolean };
  /** Why neither stdio nor http ran though the config has them (a secret not set); absent: they ran or were skipped. */
  notRun?: string;
  /** The driver's phase results; stdio and http carry what their servers loaded. */
  phases: readonly PhaseResult[];
  /**
   * Where the cell's own copies really are, when `node_modules/<name>` is a link (a pnpm layout): the real path
   * (relative to the cell) → `node_modules/<name>`. The probe reports real paths.
   */
  aliases?: Readonly<Record<string, string>>;
}

export interface RuntimeSdkCheck {
  verdict: 'passed' | 'failed' | 'not-measured';
  /** Failures, or the reason the check could not be measured. */
  messages: string[];
  observed: SdkRuntime[];
}

/**
 * The runtime half of the environment check: the SDK the running servers loaded must be the cell's
 * copy. A server that answered without loading any SDK copy carries its own (a bundle), unless a process
 * of its group ran without the probe (then it was not observed); one that loaded another copy (nested, aliased, a second version) runs what the pin does not control.
 */
export function judgeRuntimeSdk(input: RuntimeSdkInput): RuntimeSdkCheck {
  const alias = (o: SdkRuntime): SdkRuntime =>
    input.aliases ? { ...o, copies: o.copies.map((c) => ({ ...c, path: input.aliases![c.path] ?? c.path })) } : o;
  const observed = input.phases.flatMap((p) => (p.phase === 'stdio' || p.phase === 'http' ? sdkRuntimeOf(p).map(alias) : []));
  const bin = input.binFile.replace(/^\.\//, '');
  const failures = new Grouped();
  const reasons = new Grouped();
  let cellCopyLoaded = false;
  const pinned = (name: string): string => input.installSet[name]!;
  const cellPath = (name: string): string => `node_modules/${name}`;
  for (const o of observed) {
    if (!o.probe) {
      reasons.add(
        o.server,
        o.nodeBin
          ? `ran without the probe (its bin ${bin} did not load it)`
          : `ran without the probe: its bin ${bin} is not a Node program`,
      );
      continue;
    }
    const ours = o.copies.filter((c) => c.name in input.installSet && c.path === cellPath(c.name));
    const others = o.copies.filter((c) => c.name in input.installSet && c.path !== cellPath(c.name));
    for (const c of ours) {
      if (c.version === pinned(c.name)) cellCopyLoaded = true;
      else failures.add(o.server, `loaded ${c.name} ${c.version} from ${c.path}, not the pinned ${pinned(c.name)}`);
    }
    for (const c of others) {
      const cells = ours.find((x) => x.name === c.name);
      failures.add(
        o.server,
        cells
          ? `loaded a second copy of ${c.name}: ${c.version} from ${c.path}, besides the cell's ${cells.version} at ${cells.path}`
          : `loaded ${c.name} ${c.version} from ${c.path}, not the cell's ${pinned(c.name)} at ${cellPath(c.name)}`,
      );
    }
    if (ours.length === 0 && others.length === 0) {
      const cellCopy = `${cellPath(input.primary)} (${pinned(input.primary)})`;
      const foreign = o.copies.map((c) => `${c.name} ${c.version} from ${c.path}`).join(', ');
      const unseen = (o.unobserved ?? []).map((u) => `${u.command}: ${u.why}`).join('; ');
      if (o.answered && foreign)
        failures.add(o.server, `answered without loading ${cellCopy}: it loaded ${foreign}, which this cell does not pin`);
      // A launcher's child the probe missed may be what answered: unseen, not bundled.
      else if (o.answered && unseen) reasons.add(o.server, `answered from a process the probe did not see (${unseen})`);
      else if (o.answered)
        failures.add(
          o.server,
          `answered without loading ${cellCopy}: its bin carries its own copy of the SDK, so this cell cannot vary the SDK`,
        );
      else reasons.add(o.server, 'neither answered nor loaded an SDK copy');
    }
  }
  if (!failures.empty()) return { verdict: 'failed', messages: failures.lines(), observed };
  if (cellCopyLoaded) return { verdict: 'passed', messages: [], observed };
  const unseen = 'so which SDK copy the server runs was not observed';
  if (input.notRun && !input.enabled.stdio && !input.enabled.http)
    return { verdict: 'not-measured', messages: [`no server ran (${input.notRun}), ${unseen}`], observed };
  if (!input.enabled.stdio && !input.enabled.http)
    return { verdict: 'not-measured', messages: [`no server answered (stdio and http are skipped), ${unseen}`], observed };
  if (observed.length === 0)
    return { verdict: 'not-measured', messages: [`no stdio or http server was observed (the driver stopped first), ${unseen}`], observed };
  return { verdict: 'not-measured', messages: reasons.lines().map((r) => `${r}, ${unseen}`), observed };
}

/** The environment result and evidence with the runtime check folded in (the verdict rule is decideCell's). */
export function withRuntimeSdk(
  env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence },
  check: RuntimeSdkCheck,
): { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence } {
  const node = serverNode(check.observed);
  const evidence: EnvironmentEvidence = {
    ...env.evidence,
    ...(node ? { node } : {}),
    ...(check.observed.length ? { loadedSdk: check.observed } : {}),
  };
  const verdict = decideCell([env.result, { verdict: check.verdict }]) as PhaseResult['verdict'];
  const listed = env.result.details?.problems;
  const staticProblems =
    env.result.verdict !== 'failed' ? [] : Array.isArray(listed) ? listed.map(String) : [env.result.message ?? 'failed'];
  const runtime = { verdict: check.verdict, ...(check.messages.length ? { messages: check.messages } : {}) };
  const details = { ...env.result.details, runtime };
  if (verdict === 'passed') return { result: { ...env.result, details }, evidence };
  const own = check.verdict === verdict ? check.messages : [];
  const problems = [...staticProblems, ...own];
  const result: PhaseResultOf<'environment'> = {
    ...env.result,
    verdict,
    message: problems.join('; '),
    step: staticProblems.length ? (env.result.step ?? 'verify') : 'loaded SDK',
    details: { ...details, problems },
  };
  return { result, evidence };
}

/** The Node version the observed servers reported (both, joined, in the odd case they differ). */
export function serverNode(observed: readonly SdkRuntime[]): string | undefined {
  const versions = [...new Set(observed.flatMap((o) => (o.node ? [o.node] : [])))];
  return versions.length ? versions.join(' / ') : undefined;
}

function sdkRuntimeOf(phase: PhaseResultOf<'stdio' | 'http'>): SdkRuntime[] {
  // Read from a results file too: kept only when it has the shape.
  const value: unknown = phase.details?.sdkRuntime;
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is SdkRuntime =>
      typeof v === 'object' && v !== null && typeof (v as SdkRuntime).probe === 'boolean' && Array.isArray((v as SdkRuntime).copies),
  );
}

/** The same finding for several servers reads once: "the stdio and http servers answered …". */
class Grouped {
  private readonly byText = new Map<string, string[]>();
  add(server: string, text: string): void {
    const servers = this.byText.get(text) ?? [];
    if (!servers.includes(server)) servers.push(server);
    this.byText.set(text, servers);
  }
  empty(): boolean {
    return this.byText.size === 0;
  }
  lines(): string[] {
    return [...this.byText].map(([text, servers]) =>
      servers.length === 1 ? `the ${servers[0]} server ${text}` : `the ${servers.join(' and ')} servers ${text}`,
    );
  }
}
