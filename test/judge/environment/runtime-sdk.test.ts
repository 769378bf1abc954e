import { describe, expect, it } from 'vitest';
import { judgeRuntimeSdk, serverNode, withRuntimeSdk } from '../../../src/judge/environment/runtime-sdk.js';
import type { PhaseResult, PhaseResultOf, SdkRuntime } from '../../../src/results/types.js';
import { malformed } from '../../helpers/malformed.js';

describe('runtime SDK identity', () => {
  const CELL_COPY = { name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' };
  const base = {
    installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    enabled: { stdio: true, http: true },
  };
  const seen = (server: 'stdio' | 'http', o: Partial<SdkRuntime>): SdkRuntime => ({
    server,
    probe: true,
    nodeBin: true,
    answered: true,
    copies: [CELL_COPY],
    ...o,
  });
  const phase = (name: 'stdio' | 'http', ...runtime: SdkRuntime[]): PhaseResult => ({
    phase: name,
    verdict: 'passed',
    durationMs: 1,
    details: { sdkRuntime: runtime },
  });
  const judge = (...phases: PhaseResult[]) => judgeRuntimeSdk({ ...base, phases });

  it('passes servers that loaded the cell copy at the pinned version', () => {
    expect(judge(phase('stdio', seen('stdio', {})), phase('http', seen('http', {})))).toMatchObject({ verdict: 'passed', messages: [] });
  });

  it('fails a server that answered without loading any SDK copy (a bundle), once for both servers', () => {
    const check = judge(phase('stdio', seen('stdio', { copies: [] })), phase('http', seen('http', { copies: [] })));
    expect(check.verdict).toBe('failed');
    expect(check.messages).toEqual([
      'the stdio and http servers answered without loading node_modules/@modelcontextprotocol/sdk (1.32.2): its bin carries its own copy of the SDK, so this cell cannot vary the SDK',
    ]);
  });

  it('a server that answered from a process the probe did not see (a launcher’s child) is not measured, never “bundled”', () => {
    // Issue 25: a launcher re-spawns `node lib/server.js` with NODE_OPTIONS of its own, so the child runs without the probe.
    const child = {
      pid: 42,
      command: 'node node_modules/srv/lib/server.js',
      why: `its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe`,
    };
    const launcher = (server: 'stdio' | 'http') => seen(server, { copies: [], unobserved: [child] });
    const check = judge(phase('stdio', launcher('stdio')), phase('http', launcher('http')));
    expect(check.verdict).toBe('not-measured');
    expect(check.messages).toEqual([
      `the stdio and http servers answered from a process the probe did not see (node node_modules/srv/lib/server.js: its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe), so which SDK copy the server runs was not observed`,
    ]);
    // What a probed process loaded still stands: a foreign copy fails, the cell's copy passes.
    const foreign = { name: '@modelcontextprotocol/sdk', version: '1.25.0', path: '/elsewhere/sdk' };
    expect(judge(phase('stdio', seen('stdio', { copies: [foreign], unobserved: [child] }))).verdict).toBe('failed');
    expect(judge(phase('stdio', seen('stdio', { unobserved: [child] }))).verdict).toBe('passed');
    // Not answered: the same reason as before.
    expect(judge(phase('stdio', seen('stdio', { copies: [], answered: false, unobserved: [child] }))).messages).toEqual([
      'the stdio server neither answered nor loaded an SDK copy, so which SDK copy the server runs was not observed',
    ]);
  });

  it('fails a nested copy, naming both paths and versions', () => {
    const nested = {
      name: '@modelcontextprotocol/sdk',
      version: '1.25.0',
      path: 'node_modules/srv/node_modules/@modelcontextprotocol/sdk',
    };
    expect(judge(phase('stdio', seen('stdio', { copies: [nested] }))).messages).toEqual([
      "the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/srv/node_modules/@modelcontextprotocol/sdk, not the cell's 1.32.2 at node_modules/@modelcontextprotocol/sdk",
    ]);
    expect(judge(phase('stdio', seen('stdio', { copies: [CELL_COPY, { ...nested, path: 'node_modules/legacy' }] }))).messages).toEqual([
      "the stdio server loaded a second copy of @modelcontextprotocol/sdk: 1.25.0 from node_modules/legacy, besides the cell's 1.32.2 at node_modules/@modelcontextprotocol/sdk",
    ]);
  });

  it('fails the cell copy at another version than the pin', () => {
    expect(judge(phase('stdio', seen('stdio', { copies: [{ ...CELL_COPY, version: '1.25.0' }] }))).messages).toEqual([
      'the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/@modelcontextprotocol/sdk, not the pinned 1.32.2',
    ]);
  });

  it('is not measured, with the reason, for a bin that is not Node, never a silent pass', () => {
    const check = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    expect(check).toMatchObject({
      verdict: 'not-measured',
      messages: [
        'the stdio server ran without the probe: its bin bin/server.js is not a Node program, so which SDK copy the server runs was not observed',
      ],
    });
  });

  it('is not measured when no server answered or none was asked', () => {
    expect(judge(phase('stdio', seen('stdio', { answered: false, copies: [] }))).messages).toEqual([
      'the stdio server neither answered nor loaded an SDK copy, so which SDK copy the server runs was not observed',
    ]);
    expect(judgeRuntimeSdk({ ...base, enabled: { stdio: false, http: false }, phases: [] }).messages).toEqual([
      'no server answered (stdio and http are skipped), so which SDK copy the server runs was not observed',
    ]);
    // A server that loaded the cell copy is evidence even when it never answered.
    expect(judge(phase('stdio', seen('stdio', { answered: false }))).verdict).toBe('passed');
  });

  it('folds into the environment result: failed wins, then not-measured; static problems first', () => {
    const evidence = {} as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1 };
    const failed: PhaseResult = { ...passed, verdict: 'failed', step: 'verify', message: 'a; b', details: { problems: ['a; b'] } };
    const bundle = judge(phase('stdio', seen('stdio', { copies: [] })));
    const notNode = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    const ok = judge(phase('stdio', seen('stdio', {})));

    expect(withRuntimeSdk({ result: passed, evidence }, ok).result).toMatchObject({
      verdict: 'passed',
      details: { runtime: { verdict: 'passed' } },
    });
    expect(withRuntimeSdk({ result: passed, evidence }, ok).evidence.loadedSdk).toEqual([seen('stdio', {})]);
    expect(withRuntimeSdk({ result: passed, evidence }, bundle).result).toMatchObject({
      verdict: 'failed',
      step: 'loaded SDK',
      message: bundle.messages[0],
    });
    expect(withRuntimeSdk({ result: passed, evidence }, notNode).result).toMatchObject({
      verdict: 'not-measured',
      message: notNode.messages[0],
    });
    expect(withRuntimeSdk({ result: failed, evidence }, bundle).result).toMatchObject({
      verdict: 'failed',
      step: 'verify',
      message: `a; b; ${bundle.messages[0]}`,
    });
    expect(withRuntimeSdk({ result: failed, evidence }, notNode).result).toMatchObject({ verdict: 'failed', message: 'a; b' });
  });

  it('records the Node the servers reported, not the host’s', () => {
    const evidence = { node: 'v20.20.2' } as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1 };
    const on22 = judge(phase('stdio', seen('stdio', { node: 'v22.23.5' })), phase('http', seen('http', { node: 'v22.23.5' })));
    expect(withRuntimeSdk({ result: passed, evidence }, on22).evidence.node).toBe('v22.23.5');
    // Nothing observed (no probe): the host's stays, since the harness cannot know better.
    const unseen = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    expect(withRuntimeSdk({ result: passed, evidence }, unseen).evidence.node).toBe('v20.20.2');
    expect(serverNode([seen('stdio', { node: 'v22.1.0' }), seen('http', { node: 'v20.1.0' })])).toBe('v22.1.0 / v20.1.0');
  });
});

describe('runtime SDK identity: every branch, exactly', () => {
  const COPY = { name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' };
  const base = {
    installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    enabled: { stdio: true, http: true },
  };
  const seen = (server: 'stdio' | 'http', o: Partial<SdkRuntime> = {}): SdkRuntime => ({
    server,
    probe: true,
    nodeBin: true,
    answered: true,
    copies: [COPY],
    ...o,
  });
  const phase = (name: PhaseResult['phase'], sdkRuntime: unknown): PhaseResult => ({
    phase: name,
    verdict: 'passed',
    durationMs: 1,
    details: malformed({ sdkRuntime }),
  });
  const unseen = 'so which SDK copy the server runs was not observed';

  it('reads only stdio and http results, and only well-formed entries', () => {
    const check = judgeRuntimeSdk({
      ...base,
      phases: [
        phase('bind', [seen('stdio')]),
        phase('stdio', [null, 'x', { probe: 'yes', copies: [] }, { probe: true, copies: 'no' }, { probe: true }, { copies: [] }]),
        phase('http', { probe: true, copies: [] }),
        { phase: 'stdio', verdict: 'passed', durationMs: 1 },
      ],
    });
    expect(check).toStrictEqual({
      verdict: 'not-measured',
      messages: [`no stdio or http server was observed (the driver stopped first), ${unseen}`],
      observed: [],
    });
    const ok = judgeRuntimeSdk({ ...base, phases: [phase('http', [seen('http')])] });
    expect(ok).toStrictEqual({ verdict: 'passed', messages: [], observed: [seen('http')] });
  });

  it('a Node bin that did not load the probe; stdio off but http on is not "both skipped"', () => {
    const check = judgeRuntimeSdk({
      ...base,
      enabled: { stdio: false, http: true },
      phases: [phase('http', [seen('http', { probe: false, copies: [] })])],
    });
    expect(check.messages).toStrictEqual([`the http server ran without the probe (its bin bin/server.js did not load it), ${unseen}`]);
    expect(judgeRuntimeSdk({ ...base, enabled: { stdio: true, http: false }, phases: [] }).messages).toStrictEqual([
      `no stdio or http server was observed (the driver stopped first), ${unseen}`,
    ]);
    expect(
      judgeRuntimeSdk({ ...base, binFile: 'x/./server.js', phases: [phase('stdio', [seen('stdio', { probe: false, nodeBin: false })])] })
        .messages,
    ).toStrictEqual([`the stdio server ran without the probe: its bin x/./server.js is not a Node program, ${unseen}`]);
  });

  it('a server that answered having loaded only SDK packages this cell does not pin names them', () => {
    const other = { name: '@modelcontextprotocol/server', version: '2.0.0', path: 'node_modules/@modelcontextprotocol/server' };
    const client = { name: '@modelcontextprotocol/client', version: '2.0.0', path: 'node_modules/x' };
    const check = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio', { copies: [other, client] })])] });
    expect(check.messages).toStrictEqual([
      'the stdio server answered without loading node_modules/@modelcontextprotocol/sdk (1.32.2): it loaded @modelcontextprotocol/server 2.0.0 from node_modules/@modelcontextprotocol/server, @modelcontextprotocol/client 2.0.0 from node_modules/x, which this cell does not pin',
    ]);
    // Not answering and loading only foreign packages: not measured, not failed.
    const quiet = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio', { answered: false, copies: [other] })])] });
    expect(quiet).toMatchObject({
      verdict: 'not-measured',
      messages: [`the stdio server neither answered nor loaded an SDK copy, ${unseen}`],
    });
  });

  it('a second copy is compared with the cell copy of the same package, not another pinned one', () => {
    const set = { '@modelcontextprotocol/server': '2.1.0', '@modelcontextprotocol/node': '2.0.1' };
    const server = { name: '@modelcontextprotocol/server', version: '2.1.0', path: 'node_modules/@modelcontextprotocol/server' };
    const node = { name: '@modelcontextprotocol/node', version: '2.0.1', path: 'node_modules/@modelcontextprotocol/node' };
    const second = { name: '@modelcontextprotocol/node', version: '2.0.0', path: 'node_modules/x/node_modules/@modelcontextprotocol/node' };
    const check = judgeRuntimeSdk({
      ...base,
      installSet: set,
      primary: '@modelcontextprotocol/server',
      phases: [phase('stdio', [seen('stdio', { copies: [server, node, second] })])],
    });
    expect(check.messages).toStrictEqual([
      "the stdio server loaded a second copy of @modelcontextprotocol/node: 2.0.0 from node_modules/x/node_modules/@modelcontextprotocol/node, besides the cell's 2.0.1 at node_modules/@modelcontextprotocol/node",
    ]);
  });

  it('a failure outweighs a server that loaded the cell copy; the same finding of one server reads once', () => {
    const wrong = { ...COPY, version: '1.25.0' };
    const check = judgeRuntimeSdk({
      ...base,
      phases: [
        phase('stdio', [seen('stdio'), seen('stdio', { copies: [wrong] }), seen('stdio', { copies: [wrong] })]),
        phase('http', [seen('http')]),
      ],
    });
    expect(check.verdict).toBe('failed');
    expect(check.messages).toStrictEqual([
      'the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/@modelcontextprotocol/sdk, not the pinned 1.32.2',
    ]);
  });

  it('withRuntimeSdk: the whole result and evidence, for each combination', () => {
    const evidence = { npm: '11' } as unknown as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1, details: { sdk: ['x'] } };
    const ok = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio')])] });
    expect(withRuntimeSdk({ result: passed, evidence }, ok)).toStrictEqual({
      result: { ...passed, details: { sdk: ['x'], runtime: { verdict: 'passed' } } },
      evidence: { npm: '11', loadedSdk: [seen('stdio')] },
    });
    const none = judgeRuntimeSdk({ ...base, enabled: { stdio: false, http: false }, phases: [] });
    expect(withRuntimeSdk({ result: passed, evidence }, none)).toStrictEqual({
      result: {
        ...passed,
        verdict: 'not-measured',
        message: none.messages[0],
        step: 'loaded SDK',
        details: { sdk: ['x'], runtime: { verdict: 'not-measured', messages: none.messages }, problems: none.messages },
      },
      evidence: { npm: '11' },
    });
    // A failed result without a problems list or a step: its message is the static problem, the step "verify".
    const failed: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 1, message: 'broken' };
    expect(withRuntimeSdk({ result: failed, evidence }, none).result).toStrictEqual({
      ...failed,
      step: 'verify',
      message: 'broken',
      details: { runtime: { verdict: 'not-measured', messages: none.messages }, problems: ['broken'] },
    });
    const bare: PhaseResultOf<'environment'> = {
      phase: 'environment',
      verdict: 'failed',
      durationMs: 1,
      details: { problems: malformed('not a list') },
    };
    expect(withRuntimeSdk({ result: bare, evidence }, ok).result).toMatchObject({
      message: 'failed',
      step: 'verify',
      details: { problems: ['failed'] },
    });
    const listed: PhaseResultOf<'environment'> = { ...bare, step: 'custom', details: { problems: malformed(['a', 2]) } };
    expect(withRuntimeSdk({ result: listed, evidence }, ok).result).toMatchObject({ message: 'a; 2', step: 'custom' });
  });
});

describe('runtime SDK identity: why nothing was observed', () => {
  const base = {
    installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    phases: [] as PhaseResult[],
  };
  const UNSEEN = 'so which SDK copy the server runs was not observed';

  it('stdio and http not run (a secret not set) say why; with either one enabled, the driver stopped first', () => {
    const off = { stdio: false, http: false };
    expect(judgeRuntimeSdk({ ...base, enabled: off, notRun: 'SECRET_TOKEN is not set' })).toEqual({
      verdict: 'not-measured',
      messages: [`no server ran (SECRET_TOKEN is not set), ${UNSEEN}`],
      observed: [],
    });
    expect(judgeRuntimeSdk({ ...base, enabled: off }).messages).toEqual([`no server answered (stdio and http are skipped), ${UNSEEN}`]);
    for (const enabled of [
      { stdio: true, http: false },
      { stdio: false, http: true },
    ])
      expect(judgeRuntimeSdk({ ...base, enabled, notRun: 'SECRET_TOKEN is not set' }).messages).toEqual([
        `no stdio or http server was observed (the driver stopped first), ${UNSEEN}`,
      ]);
  });

  it('every process the probe did not see is named, one after another', () => {
    const unobserved = [
      { pid: 1, command: 'node a.js', why: 'why a' },
      { pid: 2, command: 'node b.js', why: 'why b' },
    ];
    const runtime: SdkRuntime = { server: 'stdio', probe: true, nodeBin: true, answered: true, copies: [], unobserved };
    const phases: PhaseResult[] = [
      { phase: 'stdio', verdict: 'passed', durationMs: 1, details: { sdkRuntime: malformed([runtime, 'junk', null]) } },
    ];
    expect(judgeRuntimeSdk({ ...base, enabled: { stdio: true, http: false }, phases }).messages).toEqual([
      `the stdio server answered from a process the probe did not see (node a.js: why a; node b.js: why b), ${UNSEEN}`,
    ]);
  });
});
