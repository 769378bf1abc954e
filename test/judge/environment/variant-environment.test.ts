// A variant's environment verdict once its driver returned: the loaded SDK folded into the cell's static check,
// and on a Node variant the installed SDK's engines and the Node its servers ran on.
import { createRequire } from 'node:module';
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
