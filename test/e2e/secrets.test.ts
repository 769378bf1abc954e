// Config `secrets`, through the real CLI on a server that needs UPSTREAM_API_KEY (fixtures/broken/needs-secret):
// a fork's pull request (GitHub's environment and event payload, as the runner gives them) has no secret, and the
// phases that need it read as not measured, naming the fork, never failed; with the secret, it reaches every phase
// and is masked wherever the server echoes it.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/cli.js';
import { phaseTable, runFixture, type FixtureRun } from './helpers/fixture-run.js';

const KEY = 'upstream-key-7f3a9c2e5b18d46a';
const dirs: string[] = [];
let fork: FixtureRun;
let reveal: FixtureRun;

beforeAll(async () => {
  const gh = await tempDir('mm-secrets-event-');
  dirs.push(gh);
  const event = path.join(gh, 'event.json');
  await writeFile(
    event,
    JSON.stringify({
      pull_request: { head: { repo: { fork: true, full_name: 'bob/server' } }, base: { repo: { full_name: 'acme/server' } } },
    }),
  );
  const forkEnv = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event, GITHUB_ACTOR: 'bob' };
  [fork, reveal] = await Promise.all([
    runFixture('needs-secret', 'mm-secrets', forkEnv),
    runFixture('needs-secret', 'mm-secrets', { UPSTREAM_API_KEY: KEY }, 'matrix.reveal.config.ts'),
  ]);
  dirs.push(fork.outDir, reveal.outDir);
}, 300_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('secrets', () => {
  it("a fork's pull request: every phase that needs the absent secret is not run, NOT MEASURED naming it and the fork; no server ran, so exit 3", () => {
    const r = fork.results!;
    expect(r, fork.out.stderr).toBeDefined();
    const table = phaseTable(r);
    expect(fork.out.code, table).toBe(3);
    const phases = r.cells[0]!.phases;
    expect(
      phases.map((p) => [p.phase, p.verdict]),
      table,
    ).toEqual([
      // secretsOnFork 'not-measured' (the default): the gate passes on what was measured, and the phases without
      // their secret say NOT MEASURED; here every server phase needs it, so nothing ran and the run is not measured.
      ['environment', 'not-measured'],
      ['stdio', 'skipped'],
      ['http', 'skipped'],
      ['bind', 'skipped'],
      ['conformance', 'skipped'],
      ['leaks', 'skipped'],
    ]);
    for (const p of phases.filter((p) => ['stdio', 'http', 'bind', 'leaks'].includes(p.phase))) {
      expect(p.step).toBe('secrets');
      expect(p.message).toBe(
        "NOT MEASURED: secret UPSTREAM_API_KEY is not set (this run is a pull request from a fork (bob/server), and GitHub gives fork pull requests no secrets); the config says this phase needs it. secretsOnFork: 'not-measured' lets this run pass on the phases it measured; the run on the base repository measures this one",
      );
    }
    expect(phases[0]!.message).toMatch(/^no server ran \(the config says they need a secret that is not set\)/);
    expect(r.warnings).toContainEqual(
      expect.stringMatching(
        /^secret\(s\) not set: UPSTREAM_API_KEY \(stdio, http, bind, conformance, leaks\): this run is a pull request from a fork/,
      ),
    );
    expect(fork.out.stdout + fork.out.stderr).toContain('secret(s) not set: UPSTREAM_API_KEY');
  });

  it('with the secret: it reaches every phase (bind and leaks pass), and no piece of it is in any output', async () => {
    const r = reveal.results!;
    expect(r, reveal.out.stderr).toBeDefined();
    const table = phaseTable(r);
    expect(
      r.cells[0]!.phases.map((p) => [p.phase, p.verdict]),
      table,
    ).toEqual([
      ['environment', 'passed'],
      ['stdio', 'failed'],
      ['http', 'failed'],
      ['bind', 'passed'],
      ['conformance', 'skipped'],
      ['leaks', 'passed'],
    ]);
    const stdio = r.cells[0]!.phases.find((p) => p.phase === 'stdio')!;
    // The server started (it exits 1 without the key) and answered with it: masked in the message and the stderr tail.
    expect(stdio.message).toMatch(/text does not contain "no key": "key \*\*\*"/);
    expect(stdio.stderrTail).toContain('using UPSTREAM_API_KEY=***');
    const outputs = [reveal.out.stdout, reveal.out.stderr];
    for (const f of await readdir(reveal.outDir)) outputs.push(await readFile(path.join(reveal.outDir, f), 'utf8'));
    for (const text of outputs) expect(text).not.toContain(KEY.slice(0, 12));
  });
});
