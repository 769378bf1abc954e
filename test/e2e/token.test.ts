// The HTTP token the harness generates appears in no output: not in the out dir (results.json,
// matrix.md, matrix.html, junit.xml), not on the CLI's stdout/stderr, not in the kept cell's logs, spec or probe
// files, for a passing cell (the reference server) and for a failing one whose server prints the token
// on stderr and stdout and returns it in a tool result (fixtures/broken/token-echo), across the
// 300-character cut of a stdout line, upper-cased, base64/base64url/URL-encoded and in 12-character pieces.
// The token is random per run; the test learns it from /proc/<pid>/environ of the servers while they
// run, and for token-echo also from the side file the server appends it to.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, readResults, ROOT, tempDir, type CliOutcome } from './helpers/cli.js';
import { environValues, filesUnder, sleep } from './helpers/procs.js';
import type { RunResult } from '../../src/results/types.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Observed {
  out: CliOutcome;
  outDir: string;
  results: RunResult;
  tokens: Set<string>;
}

/** Runs the CLI with --keep while watching every harness-started process's environment for the token. */
async function runWatching(args: string[], env: Record<string, string> = {}): Promise<Observed> {
  const outDir = await tempDir('mm-token-');
  dirs.push(outDir);
  const tokens = new Set<string>();
  // This run's servers only: other test files' servers carry tokens of their own, which would let the "watcher saw the
  // token" checks pass without this run's. The run gets a temp dir of its own; each server's TMPDIR is inside its cell,
  // inside the run's directory there (the harness passes no other variable of ours through to a server).
  const tmp = await tempDir('mm-token-tmp-');
  dirs.push(tmp);
  const mark = `TMPDIR=${realpathSync(tmp)}/`;
  let running = true;
  const watcher = (async () => {
    while (running) {
      for (const t of environValues('MCP_SERVER_TOKEN', 'MCP_MATRIX_CELL', mark)) tokens.add(t);
      await sleep(25);
    }
  })();
  // Its own working directory: the kept cells' homes (cells/<id>) go there, not into the repository.
  const cwd = await tempDir('mm-token-cwd-');
  dirs.push(cwd);
  const out = await cli(['run', ...args, '--out', outDir, '--progress', 'silent', '--keep'], {
    cwd,
    env: { ...env, TMPDIR: tmp },
    timeoutMs: 240_000,
  });
  running = false;
  await watcher;
  const results = await readResults(outDir);
  for (const cell of results.cells) if (cell.cellDir) dirs.push(runDirOf(cell.cellDir));
  return { out, outDir, results, tokens };
}

/** The kept cell's run directory: its home (cells/<id>) is a link into it. */
function runDirOf(cellDir: string): string {
  return path.dirname(realpathSync(cellDir));
}

/** Every place a token could leak to: CLI output, the out dir, the kept run dir (minus node_modules). */
function leaks(o: Observed, token: string): string[] {
  const found: string[] = [];
  // The token, any 12-character piece of it (a cut through it), and its encoded forms, in any case.
  const pieces = Array.from({ length: token.length - 11 }, (_, i) => token.slice(i, i + 12));
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const forms = [b64(token), Buffer.from(`Bearer ${token}`).toString('base64url'), encodeURIComponent(b64(`:${token}`))];
  const encodedPieces = forms.flatMap((f) => Array.from({ length: f.length - 15 }, (_, i) => f.slice(i + 2, i + 14)));
  const probes = [...pieces, ...encodedPieces].map((p) => p.toLowerCase());
  const check = (where: string, text: string): void => {
    const low = text.toLowerCase();
    if (probes.some((p) => low.includes(p))) found.push(where);
  };
  check('CLI stdout', o.out.stdout);
  check('CLI stderr', o.out.stderr);
  const files = [...filesUnder(o.outDir), ...o.results.cells.flatMap((c) => (c.cellDir ? filesUnder(runDirOf(c.cellDir)) : []))];
  for (const file of files) check(file, readFileSync(file, 'latin1'));
  return found;
}

describe('the HTTP token appears in no output', () => {
  it('passing cell (reference server, latest@1, --keep)', async () => {
    const o = await runWatching(['--config', path.join(ROOT, 'matrix.config.ts'), '--cell', 'latest-1']);
    expect(o.out.code, o.out.stderr).toBe(0);
    expect(o.results.cells[0]!.phases.find((p) => p.phase === 'http')!.verdict).toBe('passed');
    expect(o.results.cells[0]!.cellDir, 'the cell was kept').toBeTruthy();
    expect(o.tokens.size, 'the watcher saw the http server and its token').toBeGreaterThan(0);
    for (const token of o.tokens) expect(leaks(o, token)).toEqual([]);
  });

  it('failing cell whose server prints the token on stderr and stdout and returns it (token-echo, --keep)', async () => {
    const side = path.join(await tempDir('mm-token-side-'), 'tokens.txt');
    dirs.push(path.dirname(side));
    const o = await runWatching(['--config', path.join(ROOT, 'fixtures/broken/token-echo/matrix.config.ts')], { BROKEN_TOKEN_FILE: side });
    for (const t of readFileSync(side, 'utf8').split('\n').filter(Boolean)) o.tokens.add(t);
    expect(o.tokens.size).toBeGreaterThan(0);

    expect(o.out.code, o.out.stderr).toBe(1);
    const http = o.results.cells[0]!.phases.find((p) => p.phase === 'http')!;
    expect(http.verdict).toBe('failed');
    // The token reached the harness on every channel, and was masked on each.
    expect(http.message).toMatch(
      /^no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: tools\/call echo: text does not contain "hello": "token is \*\*\*"( · |$)/,
    );
    expect(http.step).toBe('tools/call echo');
    expect(http.stderrTail).toMatch(/starting with MCP_SERVER_TOKEN=\*\*\*/);
    expect(http.stdoutNoise).toContain('token ***');
    // Masked before the 300-character cut: the token across the cut leaves no piece.
    expect(http.stdoutNoise).toContain(`${'x'.repeat(280)}*** tail`);
    expect(http.stderrTail).toMatch(/^forms: \*\*\* \*\*\* \S*\*\*\*\S* \S*\*\*\*\S* piece \*\*\*$/m);
    for (const token of o.tokens) expect(leaks(o, token)).toEqual([]);
    // The search itself works: a planted copy is found.
    const [first] = [...o.tokens];
    writeFileSync(path.join(o.outDir, 'canary.txt'), `x${first!}x`);
    expect(leaks(o, first!)).toEqual([path.join(o.outDir, 'canary.txt')]);
  });
});
