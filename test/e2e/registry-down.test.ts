// Infrastructure is not a verdict: with the registry down (503) or refusing connections, `plan` and
// `run` exit 3 and say which registry and what to do; when only tarball downloads fail, the install is
// retried, the attempts are recorded and the cell is not-measured (exit 3), never failed.
// The stubs listen on 127.0.0.1 only. npm's own retries are turned off (fetch-retries=0) so that the
// harness's retries are what is measured, and the test stays fast.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, CONFIG_WINDOW, readResults, tempDir } from './helpers/cli.js';
import { refusedPort } from '../helpers/refused-port.js';

const servers: Server[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** A port nothing listens on for the whole test (never one another test file's listen(0) can take meanwhile). */
async function closedPort(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}/`;
}

async function npmEnv(registry: string): Promise<Record<string, string>> {
  // A fresh cache: nothing may be answered from an earlier run's metadata or tarballs.
  const cache = await mkdtemp(path.join(os.tmpdir(), 'mm-npm-cache-'));
  dirs.push(cache);
  // The config's own reuse window: the registry's answers are the subject.
  return {
    npm_config_registry: registry,
    npm_config_cache: cache,
    npm_config_fetch_retries: '0',
    npm_config_fetch_timeout: '20000',
    ...CONFIG_WINDOW,
  };
}

const CONFIG = 'fixtures/broken/_base/matrix.config.ts';

describe('registry down', () => {
  it('503 everywhere: plan exits 3 naming the registry, after the harness retried', async () => {
    let hits = 0;
    const url = await listen(
      createServer((_req, res) => {
        hits++;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      }),
    );
    const out = await cli(['plan', '--config', CONFIG], { env: await npmEnv(url), timeoutMs: 120_000 });
    expect(out.code, out.stderr).toBe(3);
    expect(out.stderr).toContain(`the registry ${url}`);
    expect(out.stderr).toMatch(/after 3 attempts \(E503/);
    expect(out.stderr).toMatch(/Check the network or npm's "registry" setting, then run again/);
    expect(hits).toBeGreaterThanOrEqual(3);
  });

  it('connection refused: plan and run exit 3 naming the registry; run writes no verdict', async () => {
    const url = await closedPort();
    const env = await npmEnv(url);
    const plan = await cli(['plan', '--config', CONFIG], { env, timeoutMs: 120_000 });
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stderr).toContain(`the registry ${url}`);
    expect(plan.stderr).toMatch(/ECONNREFUSED/);
    expect(plan.stderr).toMatch(/Check the network or npm's "registry" setting/);

    const outDir = await tempDir('mm-registry-down-');
    dirs.push(outDir);
    const run = await cli(['run', '--config', CONFIG, '--out', outDir, '--progress', 'silent'], { env, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`the registry ${url}`);
    // Nothing was measured, so nothing may claim a verdict.
    const results = await readResults(outDir).catch(() => undefined);
    if (results) expect(results.verdict).toBe('not-measured');
  });

  it('metadata served, tarballs 503: the install is retried, recorded, and the cell is not-measured (exit 3)', async () => {
    const upstream = 'https://registry.npmjs.org';
    let tarballHits = 0;
    // Metadata is proxied to the public registry; every tarball download answers 503.
    const url = await listen(
      createServer((req, res) => {
        if (req.url?.endsWith('.tgz')) {
          tarballHits++;
          res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
          return;
        }
        const headers: Record<string, string> = { accept: String(req.headers.accept ?? 'application/json') };
        fetch(upstream + (req.url ?? '/'), { headers }).then(
          async (r) => {
            const body = Buffer.from(await r.arrayBuffer());
            res
              .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json', 'content-length': body.length })
              .end(body);
          },
          () => res.writeHead(502).end(),
        );
      }),
    );
    const outDir = await tempDir('mm-registry-tgz-');
    dirs.push(outDir);
    const out = await cli(['run', '--config', CONFIG, '--out', outDir, '--progress', 'silent'], {
      env: await npmEnv(url),
      timeoutMs: 280_000,
    });
    const results = await readResults(outDir);
    const cell = results.cells[0]!;
    const env = cell.phases.find((p) => p.phase === 'environment')!;
    expect(out.code, `${env.message}\n${out.stderr}`).toBe(3);
    expect(results.verdict).toBe('not-measured');
    expect(cell.verdict).toBe('not-measured');
    expect(env.verdict).toBe('not-measured');
    expect(env.step).toBe('npm install');
    expect(env.message).toMatch(/^npm install could not complete after 3 attempt\(s\) \(E503\)/);
    expect(env.details).toMatchObject({ attempts: 3, code: 'E503' });
    expect(tarballHits).toBeGreaterThanOrEqual(3);
    for (const p of cell.phases.filter((x) => x.phase !== 'environment')) {
      expect(p.verdict).toBe('not-measured');
      expect(p.message).toBe('not run: the cell could not be installed');
    }
  }, 300_000);
});
