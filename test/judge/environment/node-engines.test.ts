import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { sdkEnginesProblems, serverNodeMismatch, withNodeEngines, withServerNode } from '../../../src/judge/environment/node-engines.js';
import type { EnvironmentEvidence, PhaseResult, SdkRuntime } from '../../../src/results/types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The repository's own installed 1.x SDK (engines.node ">=18"): a real copy, read in place.
const sdkVersion = (createRequire(import.meta.url)('@modelcontextprotocol/sdk/package.json') as { version: string }).version;
const SDK1 = { name: '@modelcontextprotocol/sdk', version: sdkVersion, path: 'node_modules/@modelcontextprotocol/sdk' };
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('sdkEnginesProblems', () => {
  test('an installed SDK whose engines exclude the variant’s Node is named with both', async () => {
    expect(await sdkEnginesProblems(ROOT, [SDK1], 'v16.20.2')).toEqual([
      `@modelcontextprotocol/sdk@${sdkVersion} requires node >=18; this variant runs 16.20.2`,
    ]);
    expect(await sdkEnginesProblems(ROOT, [SDK1], '18.0.0')).toEqual([]);
  });

  test('each copy is read from its own path; copies without engines, or without a manifest, pass', async () => {
    const cell = await mkdtemp(path.join(os.tmpdir(), 'mm-node-engines-'));
    dirs.push(cell);
    const write = async (rel: string, manifest: object) => {
      await mkdir(path.join(cell, rel), { recursive: true });
      await writeFile(path.join(cell, rel, 'package.json'), JSON.stringify(manifest));
    };
    await write('node_modules/@modelcontextprotocol/server', {
      name: '@modelcontextprotocol/server',
      version: '2.4.0',
      engines: { node: '>=20' },
    });
    await write('node_modules/@modelcontextprotocol/node', { name: '@modelcontextprotocol/node', version: '2.1.2' });
    const copies = [
      { name: '@modelcontextprotocol/server', version: '2.4.0', path: 'node_modules/@modelcontextprotocol/server' },
      { name: '@modelcontextprotocol/node', version: '2.1.2', path: 'node_modules/@modelcontextprotocol/node' },
      { name: '@modelcontextprotocol/core', version: '2.4.0', path: 'node_modules/@modelcontextprotocol/core' },
    ];
    expect(await sdkEnginesProblems(cell, copies, '18.20.8')).toEqual([
      '@modelcontextprotocol/server@2.4.0 requires node >=20; this variant runs 18.20.8',
    ]);
    expect(await sdkEnginesProblems(cell, copies, '20.0.0')).toEqual([]);
  });
});

describe('withNodeEngines', () => {
  const evidence = {} as EnvironmentEvidence;
  const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1, details: { sdk: ['x'] } };
  test('no problem: unchanged', () => {
    expect(withNodeEngines({ result: passed, evidence }, [])).toEqual({ result: passed, evidence });
  });
  test('a problem fails a passed environment, step node engines', () => {
    expect(withNodeEngines({ result: passed, evidence }, ['p']).result).toEqual({
      phase: 'environment',
      verdict: 'failed',
      durationMs: 1,
      message: 'p',
      step: 'node engines',
      details: { sdk: ['x'], problems: ['p'] },
    });
  });
  test('added after earlier problems; a not-measured environment becomes failed', () => {
    const failed: PhaseResult = { ...passed, verdict: 'failed', step: 'verify', message: 'a', details: { problems: ['a'] } };
    expect(withNodeEngines({ result: failed, evidence }, ['p']).result).toMatchObject({
      verdict: 'failed',
      step: 'verify',
      message: 'a; p',
    });
    const unmeasured: PhaseResult = { ...passed, verdict: 'not-measured', message: 'no probe' };
    expect(withNodeEngines({ result: unmeasured, evidence }, ['p']).result).toMatchObject({
      verdict: 'failed',
      message: 'p',
      step: 'node engines',
    });
  });
});

describe('serverNodeMismatch and withServerNode', () => {
  const seen = (server: 'stdio' | 'http', node?: string): SdkRuntime => ({
    server,
    probe: true,
    nodeBin: false,
    answered: true,
    copies: [],
    ...(node ? { node } : {}),
  });
  const evidence = {} as EnvironmentEvidence;
  const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1 };

  test('servers on the variant’s release, or unobserved: nothing', () => {
    expect(serverNodeMismatch([seen('stdio', 'v22.23.5'), seen('http')], '22.23.5')).toEqual([]);
  });

  test('servers on another Node are named with both versions, once per Node', () => {
    expect(serverNodeMismatch([seen('stdio', 'v20.20.2'), seen('http', 'v20.20.2')], '22.23.5')).toEqual([
      "the stdio and http servers ran on Node v20.20.2, not this variant's v22.23.5: its bin starts a Node of its own choosing, so this variant did not measure its Node",
    ]);
    expect(serverNodeMismatch([seen('stdio', 'v20.20.2'), seen('http', 'v22.23.5')], '22.23.5')).toEqual([
      "the stdio server ran on Node v20.20.2, not this variant's v22.23.5: its bin starts a Node of its own choosing, so this variant did not measure its Node",
    ]);
  });

  test('passed becomes not-measured; a failure stands with the mismatch in its details', () => {
    expect(withServerNode({ result: passed, evidence }, [])).toEqual({ result: passed, evidence });
    expect(withServerNode({ result: passed, evidence }, ['m']).result).toEqual({
      ...passed,
      verdict: 'not-measured',
      message: 'm',
      step: 'server Node',
      details: { nodeMismatch: ['m'] },
    });
    const failed: PhaseResult = { ...passed, verdict: 'failed', message: 'f', step: 'verify' };
    expect(withServerNode({ result: failed, evidence }, ['m']).result).toEqual({ ...failed, details: { nodeMismatch: ['m'] } });
    const unmeasured: PhaseResult = { ...passed, verdict: 'not-measured', message: 'u', step: 'loaded SDK' };
    expect(withServerNode({ result: unmeasured, evidence }, ['m']).result).toMatchObject({
      verdict: 'not-measured',
      message: 'u; m',
      step: 'loaded SDK',
    });
  });
});

describe('node engines: edges', () => {
  const evidence = {} as EnvironmentEvidence;
  test('a Node release with a prerelease tag (a v8-canary build) is judged and named as it is', async () => {
    expect(await sdkEnginesProblems(ROOT, [SDK1], '22.0.0-v8-canary2024')).toEqual([]);
    expect(await sdkEnginesProblems(ROOT, [SDK1], '16.20.2-v8-canary1')).toEqual([
      `@modelcontextprotocol/sdk@${sdkVersion} requires node >=18; this variant runs 16.20.2-v8-canary1`,
    ]);
  });

  test('engines.node that is not a range (a word, a number, an object) excludes nothing', async () => {
    const cell = await mkdtemp(path.join(os.tmpdir(), 'mm-node-engines-'));
    dirs.push(cell);
    const copies = ['word', 'number', 'object', 'none'].map((name) => ({ name, version: '1.0.0', path: `node_modules/${name}` }));
    const engines = { word: { node: 'whenever' }, number: { node: 99 }, object: { node: { min: 99 } }, none: undefined };
    for (const [name, e] of Object.entries(engines)) {
      await mkdir(path.join(cell, 'node_modules', name), { recursive: true });
      await writeFile(path.join(cell, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', engines: e }));
    }
    expect(await sdkEnginesProblems(cell, copies, '18.0.0')).toEqual([]);
  });

  test('an earlier failure without a problem list keeps its message, or "failed", and its step, or "verify"', () => {
    const bare: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 1 };
    expect(withNodeEngines({ result: { ...bare, message: 'install failed' }, evidence }, ['p']).result).toEqual({
      ...bare,
      message: 'install failed; p',
      step: 'verify',
      details: { problems: ['install failed', 'p'] },
    });
    expect(withNodeEngines({ result: bare, evidence }, ['p']).result).toMatchObject({ message: 'failed; p', step: 'verify' });
  });

  test('the variant’s version may carry its v; a prerelease Node the server ran on is the same Node', () => {
    const ran = (node: string): SdkRuntime => ({ server: 'stdio', probe: true, nodeBin: false, answered: true, copies: [], node });
    expect(serverNodeMismatch([ran('v22.23.5')], 'v22.23.5')).toEqual([]);
    expect(serverNodeMismatch([ran('v22.0.0-v8-canary1')], '22.0.0-v8-canary1')).toEqual([]);
  });

  test('a passed result’s own message and step give way to the mismatch; a not-measured one without a step gets "server Node"', () => {
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1, message: 'SDK 1.32.2', step: 'verify' };
    expect(withServerNode({ result: passed, evidence }, ['m']).result).toMatchObject({
      verdict: 'not-measured',
      message: 'm',
      step: 'server Node',
    });
    const unmeasured: PhaseResult = { phase: 'environment', verdict: 'not-measured', durationMs: 1 };
    expect(withServerNode({ result: unmeasured, evidence }, ['m']).result).toMatchObject({ message: 'm', step: 'server Node' });
  });
});
