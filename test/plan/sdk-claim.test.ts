// Issue 32 item 3: a server built on a framework declares the SDK only through it (the package → the
// framework → the SDK range). The plan finds the chain from the manifests (registry metadata recorded from
// the npm registry on 2026-12-05, a `file:` dependency from the package's own tree) and takes floor and latest from it.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { deriveInit, rangesLine } from '../../src/commands/init/plan.js';
import { buildPlan, type Plan } from '../../src/plan/plan.js';
import type { Registry } from '../../src/plan/registry.js';
import { chainNote, chainText, effectiveRanges, intersectRanges, majorClaims, rangeText, sdkClaims } from '../../src/plan/sdk-claim.js';
import { DEFAULT_MAJORS } from '../../src/config/majors.js';
import { fakeRegistry, SDK } from './fake-registry.js';
import { fail, ok } from '../../src/util/result.js';

const V1 = '@modelcontextprotocol/sdk';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm view fastmcp@">=4.2.0 <=4.4.0" version dependencies peerDependencies --json` (the SDK range and peers kept). */
const FASTMCP_PEERS = { '4.3.0': { jose: '^5.0.0' }, '4.3.2': { jose: '^5.0.0' }, '4.4.0': { jose: '^5.0.0' } };
const FASTMCP_DEPS = {
  '4.3.0': { [V1]: '^1.24.3', 'mcp-proxy': '^6.4.6', zod: '^4.1.13' },
  '4.3.2': { [V1]: '^1.24.3', 'mcp-proxy': '^6.4.6', zod: '^4.1.13' },
  '4.4.0': { [V1]: '^1.24.3', 'mcp-proxy': '^6.4.6', zod: '^4.1.13' },
};
/** firecrawl-mcp@3.26.0's dependencies (`npm view firecrawl-mcp@3.26.0 dependencies`): no range on the SDK. */
const FIRECRAWL_DEPS = { dotenv: '^17.2.2', fastmcp: '4.3.2', firecrawl: '4.42.0', zod: '^4.2.1' };

function registry(): Registry & { asked: string[] } {
  const base = fakeRegistry(
    {
      ...SDK,
      [V1]: { ...SDK[V1], '1.24.3': {}, '1.25.0': {} },
      fastmcp: FASTMCP_PEERS,
      dotenv: { '17.2.3': {} },
      zod: { '4.2.1': {} },
    },
    { fastmcp: FASTMCP_DEPS },
  );
  const asked: string[] = [];
  return {
    ...base,
    asked,
    get lookups() {
      return base.lookups;
    },
    meta(name) {
      asked.push(name);
      return base.meta(name);
    },
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-sdk-claim-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function planOf(config: Omit<MatrixConfig, 'package'>, manifest: Record<string, unknown>, reg = registry()) {
  const pkg = path.join(dir, String(Math.random()).slice(2));
  await mkdir(pkg);
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'srv', version: '1.0.0', bin: { srv: 'srv.js' }, ...manifest }));
  const resolved = resolveConfig({ file: path.join(pkg, 'matrix.config.ts'), dir: pkg, config: { package: '.', ...config } }, {}, pkg);
  return { built: await buildPlan(resolved, reg), asked: reg.asked };
}

function planned(built: Awaited<ReturnType<typeof planOf>>['built']): Plan {
  if (!built.ok) throw new Error(built.error.message + (built.error.details ?? []).join('\n'));
  return built.value;
}

describe('the plan follows the SDK through a framework', () => {
  it('floor and latest come from the framework the package depends on (firecrawl-mcp → fastmcp@4.3.2 → ^1.24.3)', async () => {
    const { built } = await planOf(
      { cells: [{ pin: 'floor@1' }, { pin: 'latest@1' }], lockstep: 'error' },
      { dependencies: FIRECRAWL_DEPS },
    );
    const plan = planned(built);
    expect(plan.cells.map((c) => c.version)).toEqual(['1.24.3', '1.32.2']);
    expect(plan.lockstep).toEqual([]);
    expect(plan.package.sdkClaims).toEqual({
      [V1]: { range: '^1.24.3', through: [{ name: 'fastmcp', version: '4.3.2', range: '^1.24.3' }] },
    });
  });

  it('the framework version npm would install: the newest its range admits', async () => {
    const { built } = await planOf({ cells: [{ pin: 'floor@1' }], lockstep: 'off' }, { dependencies: { fastmcp: '~4.3.0' } });
    expect(planned(built).package.sdkClaims?.[V1]?.through).toEqual([{ name: 'fastmcp', version: '4.3.2', range: '^1.24.3' }]);
  });

  it('lockstep names the chain', async () => {
    const { built } = await planOf({ cells: [{ pin: '1.23.0' }, { pin: 'latest@1' }], lockstep: 'warn' }, { dependencies: FIRECRAWL_DEPS });
    expect(planned(built).lockstep.map((f) => f.message)).toEqual([
      `cell 1.23.0 pins ${V1}@1.23.0, outside the range "^1.24.3" claimed through fastmcp@4.3.2`,
      `the range "^1.24.3" claimed through fastmcp@4.3.2 admits ${V1}@1.24.3, but no cell pins it (lowest cell: 1.23.0); add a floor@1 cell or raise the range`,
    ]);
  });

  it('a package with a range of its own looks up none of its dependencies', async () => {
    const { built, asked } = await planOf(
      { cells: [{ pin: 'floor@1' }], lockstep: 'off' },
      { dependencies: { fastmcp: '4.3.2' }, peerDependencies: { [V1]: '^1.23.0' } },
    );
    expect(planned(built).cells.map((c) => c.version)).toEqual(['1.23.0']);
    expect(asked).not.toContain('fastmcp');
  });

  // Item 9 review: a framework whose manifest the registry would not serve (5xx, timeout) made the package "declare
  // no range": a usage error (exit 2) for a floor pin, and a lockstep finding that failed the run (exit 1).
  it('a framework the registry cannot serve is the machine\'s failure, never "declares no range"', async () => {
    const down = registry();
    const meta = down.meta.bind(down);
    down.meta = (name) =>
      name === 'fastmcp' ? Promise.resolve(fail('infrastructure', 'registry.test answered 503 for fastmcp')) : meta(name);
    for (const config of [
      { cells: [{ pin: 'floor@1' }], lockstep: 'off' as const },
      { cells: [{ pin: 'latest@1' }], lockstep: 'error' as const },
    ]) {
      const { built } = await planOf(config, { dependencies: FIRECRAWL_DEPS }, down);
      expect(built.ok).toBe(false);
      if (built.ok) continue;
      expect(built.error).toEqual({
        kind: 'infrastructure',
        message:
          'could not read the manifest of fastmcp (registry.test answered 503 for fastmcp), through which the package may claim its SDK range; nothing was judged',
      });
    }
    // Not on the registry at all (a 404 is the package's): nothing to read, so no range through it.
    const gone = registry();
    const meta2 = gone.meta.bind(gone);
    gone.meta = (name) => (name === 'fastmcp' ? Promise.resolve(fail('usage', 'fastmcp does not exist')) : meta2(name));
    const { built } = await planOf({ cells: [{ pin: 'floor@1' }], lockstep: 'off' }, { dependencies: FIRECRAWL_DEPS }, gone);
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.error.message).toBe(`pin floor@1: the package declares no range on ${V1}, so it has no floor for major 1`);
  });

  it('a package with no range, direct or through a dependency, still has no floor', async () => {
    const { built } = await planOf(
      { cells: [{ pin: 'floor@1' }], lockstep: 'off' },
      { dependencies: { zod: '^4.2.1', dotenv: '^17.2.2' } },
    );
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.error.message).toBe(`pin floor@1: the package declares no range on ${V1}, so it has no floor for major 1`);
  });

  it('a file: framework inside the package (the fixture sdk-through-framework), read from its directory', async () => {
    const fixture = path.join(ROOT, 'fixtures/broken/sdk-through-framework');
    const resolved = resolveConfig(
      { file: path.join(fixture, 'matrix.config.ts'), dir: fixture, config: { package: '.', cells: [{ pin: 'floor@1' }] } },
      {},
      fixture,
    );
    const plan = planned(await buildPlan(resolved, registry()));
    expect(plan.cells.map((c) => c.version)).toEqual(['1.23.0']);
    expect(chainText(V1, plan.package.sdkClaims?.[V1])).toBe(`through mini-mcp-framework@0.3.1: ${V1} >=1.23.0 <2`);
  });

  it('a file: framework inside a tarball (--tarball), read from the tarball', async () => {
    const tree = path.join(dir, 'tree');
    await mkdir(path.join(tree, 'package/fw'), { recursive: true });
    await writeFile(
      path.join(tree, 'package/package.json'),
      JSON.stringify({ name: 'srv', version: '1.0.0', bin: 'srv.js', dependencies: { fw: 'file:fw' } }),
    );
    await writeFile(
      path.join(tree, 'package/fw/package.json'),
      JSON.stringify({ name: 'fw', version: '2.0.0', peerDependencies: { [V1]: '^1.25.0' } }),
    );
    const tarball = path.join(dir, 'srv-1.0.0.tgz');
    execFileSync('tar', ['-czf', tarball, '-C', tree, 'package']);
    const resolved = resolveConfig(
      { file: path.join(dir, 'matrix.config.ts'), dir, config: { package: '.', cells: [{ pin: 'floor@1' }] } },
      { tarball },
      dir,
    );
    const plan = planned(await buildPlan(resolved, registry()));
    expect(plan.cells.map((c) => c.version)).toEqual(['1.25.0']);
  });

  it('init takes its cells from the chain and says so', () => {
    const claims = { [V1]: { range: '^1.24.3', through: [{ name: 'fastmcp', version: '4.3.2', range: '^1.24.3' }] } };
    const d = deriveInit({ name: 'firecrawl-mcp', bin: { 'firecrawl-mcp': 'dist/index.js' }, dependencies: FIRECRAWL_DEPS }, claims);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.value.majors).toEqual([1]);
    expect(rangesLine(d.value)).toBe(`${V1} "^1.24.3" (through fastmcp@4.3.2: ${V1} ^1.24.3)`);
  });
});

describe('sdkClaims', () => {
  const names = [V1, '@modelcontextprotocol/server'];
  it('every framework with a range on the SDK must admit the pin: their ranges intersect', async () => {
    const lookup = async (name: string) =>
      ok({ a: { version: '1.0.0', ranges: { [V1]: '^1.20.0 || ^2.0.0' } }, b: { version: '3.0.0', ranges: { [V1]: '>=1.24.0' } } }[name]);
    const claimed = await sdkClaims({ a: '^1.0.0', b: '^3.0.0', [V1 + '-x']: '1' }, names, names, lookup);
    if (!claimed.ok) throw new Error(claimed.error.message);
    const claims = claimed.value;
    expect(claims[V1]?.range).toBe('>=1.20.0 <2.0.0-0 >=1.24.0 || >=2.0.0 <3.0.0-0 >=1.24.0');
    expect(chainText(V1, claims[V1])).toBe(`through a@1.0.0: ${V1} ^1.20.0 || ^2.0.0; through b@3.0.0: ${V1} >=1.24.0`);
  });

  it('a framework that names the SDK by a dist-tag does not narrow the claim, and the pin in range is not blamed', async () => {
    const lookup = async (name: string) =>
      ok({ a: { version: '1.0.0', ranges: { [V1]: '^1.20.0' } }, b: { version: '3.0.0', ranges: { [V1]: 'latest' } } }[name]);
    const claimed = await sdkClaims({ a: '^1.0.0', b: '^3.0.0' }, names, names, lookup);
    if (!claimed.ok) throw new Error(claimed.error.message);
    expect(claimed.value[V1]?.range).toBe('^1.20.0');
    expect(semver.satisfies('1.24.0', claimed.value[V1]!.range)).toBe(true);
    expect(chainText(V1, claimed.value[V1])).toBe(`through a@1.0.0: ${V1} ^1.20.0; through b@3.0.0: ${V1} latest`);
  });

  it('an SDK package the package depends on is not a framework; a look-up that finds nothing claims nothing', async () => {
    const asked: string[] = [];
    const claims = await sdkClaims({ '@modelcontextprotocol/server': '^2.0.0', x: '1.0.0' }, [V1], names, async (name) => {
      asked.push(name);
      return ok(undefined);
    });
    expect(claims).toEqual({ ok: true, value: {} });
    expect(asked).toEqual(['x']);
  });

  it('a look-up that could not be made (a failure of the machine, or one that threw) fails the claim, naming each', async () => {
    const claimed = await sdkClaims({ x: '1.0.0', y: '2.0.0', z: '3.0.0' }, [V1], names, async (name) => {
      if (name === 'x') return fail('infrastructure', 'ECONNRESET');
      if (name === 'y') throw new Error('socket hang up');
      return fail('usage', 'z does not exist');
    });
    expect(claimed).toEqual({
      ok: false,
      error: {
        kind: 'infrastructure',
        message:
          'could not read the manifest of x (ECONNRESET), y (y: socket hang up), through which the package may claim its SDK range; nothing was judged',
      },
    });
    // A dependency that is not there (usage) claims nothing, and the others still do.
    const partly = await sdkClaims({ z: '3.0.0', w: '1.0.0' }, [V1], names, async (name) =>
      name === 'z' ? fail('usage', 'z does not exist') : ok({ version: '1.0.0', ranges: { [V1]: '^1.5.0' } }),
    );
    expect(partly).toEqual({ ok: true, value: { [V1]: { range: '^1.5.0', through: [{ name: 'w', version: '1.0.0', range: '^1.5.0' }] } } });
  });

  it('a package that declares a range speaks for itself: no chain, no look-up', async () => {
    const claimed = await sdkClaims({ [V1]: '^1.2.0', fw: '1.0.0' }, names, names, () => Promise.reject(new Error('not asked')));
    expect(claimed).toEqual({ ok: true, value: { [V1]: { range: '^1.2.0', through: [] } } });
  });

  it('majorClaims: every pinned and companion package of every recipe is the SDK, never a framework to look up', async () => {
    const asked: string[] = [];
    const ranges = { '@modelcontextprotocol/client': '^2.0.0', '@modelcontextprotocol/node': '^2.0.0', fw: '1.0.0' };
    const claimed = await majorClaims({ ...ranges }, DEFAULT_MAJORS, async (name) => {
      asked.push(name);
      return ok({ version: '1.0.0', ranges: { [V1]: '^1.5.0' } });
    });
    // The client is a pinned package of major 2 but not its primary: the package declares no range on either primary.
    expect(asked).toEqual(['fw']);
    expect(claimed).toEqual({
      ok: true,
      value: { [V1]: { range: '^1.5.0', through: [{ name: 'fw', version: '1.0.0', range: '^1.5.0' }] } },
    });
  });

  it('effectiveRanges: the claims over the declared ranges, the others kept', () => {
    const claim = { range: '^1.24.3', through: [{ name: 'fastmcp', version: '4.3.2', range: '^1.24.3' }] };
    expect(effectiveRanges({ zod: '^4.2.1', [V1]: '^1.0.0' }, { [V1]: claim })).toEqual({ zod: '^4.2.1', [V1]: '^1.24.3' });
    expect(effectiveRanges({ zod: '^4.2.1' }, undefined)).toEqual({ zod: '^4.2.1' });
  });

  it('the texts: a declared range, a chain of one and of two, nothing to say', () => {
    const declared = { range: '^1.2.0', through: [] };
    const one = { range: '^1.24.3', through: [{ name: 'fastmcp', version: '4.3.2', range: '^1.24.3' }] };
    const two = { range: 'x', through: [...one.through, { name: 'mcp-framework', version: '0.2.0', range: '>=1.20.0' }] };
    expect(chainText(V1, undefined)).toBe('');
    expect(chainText(V1, declared)).toBe('');
    expect(chainNote(V1, declared)).toBe('');
    expect(chainNote(V1, undefined)).toBe('');
    expect(chainNote(V1, one)).toBe(` (through fastmcp@4.3.2: ${V1} ^1.24.3)`);
    expect(rangeText('^1.2.0', undefined)).toBe('the declared range "^1.2.0"');
    expect(rangeText('^1.2.0', declared)).toBe('the declared range "^1.2.0"');
    expect(rangeText('^1.24.3', one)).toBe('the range "^1.24.3" claimed through fastmcp@4.3.2');
    expect(rangeText('x', two)).toBe('the range "x" claimed through fastmcp@4.3.2 and mcp-framework@0.2.0');
  });

  it('intersectRanges: none, one, a range that is not semver', () => {
    expect(intersectRanges([])).toBeUndefined();
    expect(intersectRanges(['^1.2.0'])).toBe('^1.2.0');
    expect(intersectRanges(['latest'])).toBe('latest');
    // A dist-tag cannot be intersected: the semver ranges decide (joined as text, no version would satisfy it).
    expect(intersectRanges(['^1.2.0', 'latest'])).toBe('^1.2.0');
    expect(intersectRanges(['latest', '^1.2.0', '>=1.5.0'])).toBe('>=1.2.0 <2.0.0-0 >=1.5.0');
    expect(intersectRanges(['latest', 'next'])).toBe('latest');
    expect(intersectRanges(['*', '^1.2.0'])).toBe('>=1.2.0 <2.0.0-0');
    expect(intersectRanges(['*', '*'])).toBe('*');
    expect(intersectRanges(['^1.2.0 || ^2.0.0', '>=1.5.0'])).toBe('>=1.2.0 <2.0.0-0 >=1.5.0 || >=2.0.0 <3.0.0-0 >=1.5.0');
  });
});
