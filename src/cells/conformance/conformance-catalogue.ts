// Which of the conformance suite's server scenarios a cell can run, read from the suite itself. The suite has no
// "needs fixture tools" flag, so it is derived from each scenario's description: one that asks for the suite's own
// tools is not run; one whose endpoint is `<capability>/…` runs only when the server advertises it.

/** A server scenario of the suite, as the cell's driver gets it. */
export interface ConformanceScenario {
  name: string;
  /** The capability the server must advertise for this scenario to apply (`tools` for `tools/list`). */
  capability?: string;
  /** Its scope is servers without authentication (its description says so): behind a token its failure is shown, never a verdict. */
  unauthenticatedOnly?: true;
  /**
   * Its code sets a timer it never clears: the suite's process cannot run another scenario after it (the gate ends
   * the process, probe/suite-gate.ts), so the driver runs it after the others and reports it in the suite's order.
   */
  endsProcess?: true;
}

/** A scenario the harness never runs, with why (shown in the phase's details). */
export interface ExcludedScenario {
  name: string;
  why: string;
}

export interface Catalogue {
  run: ConformanceScenario[];
  excluded: ExcludedScenario[];
}

/** `  - server-initialize [2025-06-18,2025-11-25]` lines of `conformance list --server`, in order. */
export function parseScenarioList(stdout: string): string[] {
  const names: string[] = [];
  let inServer = false;
  for (const line of stdout.split('\n')) {
    if (/^\S/.test(line)) inServer = /^server scenarios/i.test(line.trim());
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (inServer && m) names.push(m[1]!);
  }
  return names;
}

/** What the bundle says of one scenario: its description, and its class's code (up to the next scenario). */
export interface ScenarioSource {
  description: string;
  code: string;
}

const SCENARIO =
  /this\.name=`([A-Za-z0-9/_.-]+)`,this\.specVersions=\[[^\]]*\],this\.description=(?:`((?:[^`\\]|\\.)*)`|("(?:[^"\\]|\\.)*"))/g;

/**
 * Every `this.name=\`x\`, …, this.description=…` of the bundle (the scenario classes as the bundler emits
 * them, the description a template or a plain string): name → description and the class's code.
 */
export function scenarioSources(bundle: string): Map<string, ScenarioSource> {
  const found = [...bundle.matchAll(SCENARIO)];
  const out = new Map<string, ScenarioSource>();
  found.forEach((m, i) => {
    const name = m[1]!;
    if (out.has(name)) return;
    const description = m[2] !== undefined ? m[2].replace(/\\n/g, '\n').replace(/\\(.)/g, '$1') : (JSON.parse(m[3]!) as string);
    const code = bundle.slice(m.index + m[0].length, found[i + 1]?.index ?? bundle.length);
    out.set(name, { description, code });
  });
  return out;
}

/**
 * The suite's own fixture a scenario needs, if any: what its description asks the server to implement, else
 * a `test://` resource or a `test_…` tool or prompt its description or code names.
 */
export function fixtureOf(source: ScenarioSource): string | undefined {
  const implement = /Implement (?:a )?(?:tool|resource template|resource|prompt)(?: named)?\s+`([^`]+)`/.exec(source.description);
  // A name the bundle fills in at run time (`${E}`) is still one of the suite's own.
  if (implement) return implement[1]!.includes('${') ? 'a tool the suite names at run time' : implement[1];
  const named = /(test:\/\/[^\s`"'$]+|\btest_[a-z0-9_]+)/;
  return named.exec(source.description)?.[1] ?? named.exec(source.code)?.[1];
}

/**
 * The capability the server must advertise: `tools` for `tools/list`, `completions` for `completion/complete`,
 * `resources.subscribe` for `resources/subscribe` and `resources/unsubscribe`; none for `initialize` or `ping`.
 */
export function capabilityOf(description: string): string | undefined {
  const endpoint = /\*\*Endpoint\*\*:\s*`([^`]+)`/.exec(description)?.[1];
  if (!endpoint?.includes('/')) return undefined;
  const [head, method] = endpoint.split('/') as [string, string];
  if (head === 'completion') return 'completions';
  return /^(un)?subscribe$/.test(method) ? `${head}.subscribe` : head;
}

/** A timer set in the scenario's code and never cleared: a `setTimeout(` more than a `clearTimeout(`. */
export function leavesTimer(code: string): boolean {
  const count = (call: string): number => code.split(call).length - 1;
  return count('setTimeout(') > count('clearTimeout(');
}

/** The scenarios to run and those excluded, in the suite's order. */
export function catalogue(names: string[], sources: Map<string, ScenarioSource>): Catalogue {
  const run: ConformanceScenario[] = [];
  const excluded: ExcludedScenario[] = [];
  for (const name of names) {
    const source = sources.get(name);
    if (source === undefined) {
      excluded.push({ name, why: "no description found in the suite's bundle, so what it needs is unknown" });
      continue;
    }
    const fixture = fixtureOf(source);
    if (fixture) {
      excluded.push({ name, why: `needs the suite's fixture ${fixture}` });
      continue;
    }
    const capability = capabilityOf(source.description);
    const unauthenticatedOnly = /without\s+authentication/i.test(source.description);
    run.push({
      name,
      ...(capability ? { capability } : {}),
      ...(unauthenticatedOnly ? { unauthenticatedOnly: true as const } : {}),
      ...(leavesTimer(source.code) ? { endsProcess: true as const } : {}),
    });
  }
  return { run, excluded };
}
