// A variant's environment verdict once its driver returned: the loaded SDK folded into the cell's static check,
// and on a Node variant the installed SDK's engines and the Node its servers ran on.
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { judgeVariantEnvironment } from '../../../src/judge/environment/variant-environment.js';
import type { EnvironmentEvidence, PhaseResult, PhaseResultOf, SdkRuntime } from '../../../src/results/types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The repository's own installed 1.x SDK (engines.node ">=18"), read in place as a cell's copy.
const version = (createRequire(import.meta.url)('@modelcontextprotocol/sdk/package.json') as { version: string }).version;
const COPY = { name: '@modelcontextprotocol/sdk', version, path: 'node_modules/@modelcontextprotocol/sdk' };

const input = (node: string | undefined, nodeVersion?: string) => {
  const runtime: SdkRuntime = { server: 'stdio', probe: true, nodeBin: true, answered: true, copies: [COPY], ...(node ? { node } : {}) };
  const env = {
    result: { phase: 'environment', verdict: 'passed', durationMs: 1 } as PhaseResultOf<'environment'>,
    evidence: { sdkPackages: [COPY] } as unknown as EnvironmentEvidence,
  };
  return {
    env,
    cellDir: ROOT,
    installSet: { '@modelcontextprotocol/sdk': version },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    enabled: { stdio: true, http: false },
    phases: [{ phase: 'stdio', verdict: 'passed', durationMs: 1, details: { sdkRuntime: [runtime] } }] as PhaseResult[],
    ...(nodeVersion ? { nodeVersion } : {}),
  };
};

describe('judgeVariantEnvironment', () => {
  it('the cell’s copy loaded, on the host’s Node: passed, with what was loaded in the evidence; engines are not consulted', async () => {
    const judged = await judgeVariantEnvironment(input('v16.20.2'));
    expect(judged.result.verdict).toBe('passed');
    expect(judged.evidence.loadedSdk).toHaveLength(1);
    expect(judged.evidence.node).toBe('v16.20.2');
  });

  it('a Node variant whose release the installed SDK’s engines exclude fails, naming both', async () => {
    const judged = await judgeVariantEnvironment(input('v16.20.2', '16.20.2'));
    expect(judged.result).toMatchObject({
      verdict: 'failed',
      step: 'node engines',
      message: `@modelcontextprotocol/sdk@${version} requires node >=18; this variant runs 16.20.2`,
    });
  });

  it('a Node variant whose servers ran on another Node did not measure its Node', async () => {
    const judged = await judgeVariantEnvironment(input('v20.19.5', '22.11.0'));
    expect(judged.result).toMatchObject({ verdict: 'not-measured', step: 'server Node' });
    expect(judged.result.message).toContain("ran on Node v20.19.5, not this variant's v22.11.0");
    expect((await judgeVariantEnvironment(input('v22.11.0', '22.11.0'))).result.verdict).toBe('passed');
  });
});

// The cell's own copy where the layout keeps it: pnpm links node_modules/<name> into node_modules/.pnpm, Yarn PnP
// keeps it in its cache. The probe reports the real path; each stands for the pinned node_modules/<name>.
describe('judgeVariantEnvironment: the pinned copy behind a link or in PnP', () => {
  const SDK = '@modelcontextprotocol/sdk';
  const loaded = (...copies: { version: string; path: string }[]) => {
    const runtime: SdkRuntime = {
      server: 'stdio',
      probe: true,
      nodeBin: true,
      answered: true,
      copies: copies.map((c) => ({ name: SDK, ...c })),
    };
    return [{ phase: 'stdio', verdict: 'passed', durationMs: 1, details: { sdkRuntime: [runtime] } }] as PhaseResult[];
  };
  const base = (cellDir: string, phases: PhaseResult[]) => ({
    ...input(undefined),
    cellDir,
    installSet: { [SDK]: '1.24.0', zod: '4.1.0' },
    phases,
  });

  it("pnpm: the link's real path, through the cell's own real path, is the cell's copy", async () => {
    const real = await mkdtemp(path.join(os.tmpdir(), 'variant-env-'));
    const link = `${real}-link`;
    try {
      const store = path.join(real, 'node_modules/.pnpm/@modelcontextprotocol+sdk@1.24.0/node_modules', SDK);
      await mkdir(store, { recursive: true });
      await mkdir(path.join(real, 'node_modules/@modelcontextprotocol'), { recursive: true });
      await symlink(store, path.join(real, 'node_modules', SDK));
      await mkdir(path.join(real, 'node_modules/zod'), { recursive: true }); // a plain folder: nothing to alias
      await symlink(real, link); // the cell reached through a link (a temp dir under a linked /tmp)
      const storePath = `node_modules/.pnpm/@modelcontextprotocol+sdk@1.24.0/node_modules/${SDK}`;

      const judged = await judgeVariantEnvironment(base(link, loaded({ version: '1.24.0', path: storePath })));
      expect(judged.result.verdict, judged.result.message).toBe('passed');

      const nested = await judgeVariantEnvironment(
        base(link, loaded({ version: '1.24.0', path: storePath }, { version: '1.25.0', path: `node_modules/zod/node_modules/${SDK}` })),
      );
      expect(nested.result.message).toBe(
        `the stdio server loaded a second copy of ${SDK}: 1.25.0 from node_modules/zod/node_modules/${SDK}, besides the cell's 1.24.0 at node_modules/${SDK}`,
      );
    } finally {
      await rm(link, { force: true });
      await rm(real, { recursive: true, force: true });
    }
  });

  it("PnP: the pinned version's location in Yarn's cache is the cell's copy; another version stays another copy", async () => {
    const cellDir = '/cell';
    const zip = (v: string) => `.yarn/cache/@modelcontextprotocol-sdk-npm-${v}-0123abcd.zip/node_modules/${SDK}`;
    const pnpPackages = [
      { name: SDK, version: '1.24.0', location: `${cellDir}/${zip('1.24.0')}/` },
      { name: SDK, version: '1.23.0', location: `${cellDir}/${zip('1.23.0')}/` },
    ];
    const judged = await judgeVariantEnvironment({ ...base(cellDir, loaded({ version: '1.24.0', path: zip('1.24.0') })), pnpPackages });
    expect(judged.result.verdict, judged.result.message).toBe('passed');

    const other = await judgeVariantEnvironment({ ...base(cellDir, loaded({ version: '1.23.0', path: zip('1.23.0') })), pnpPackages });
    expect(other.result.message).toBe(
      `the stdio server loaded ${SDK} 1.23.0 from ${zip('1.23.0')}, not the cell's 1.24.0 at node_modules/${SDK}`,
    );
  });
});
