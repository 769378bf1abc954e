// Reports of a run with axes: one row per variant grouped by cell, Client and Node columns, the
// variant id in JUnit, the annotations and the terminal; a run without axes is unchanged.
import { describe, expect, test } from 'vitest';
import { renderAnnotations, renderJunit, renderMarkdown, renderTable, renderTitle } from '../../src/reports/index.js';
import { renderTerminalFailures } from '../../src/reports/terminal.js';
import { CLIENT_NEW, CLIENT_OLD, FOUR_CELLS, makeRun, NODE_20, NODE_22, variantSpecs } from './helpers/make-run.js';

const OLD_CLIENT_FAILS = 'v2-latest~client-1.0.0~node-22';
const message =
  'tools/call add-note: client @modelcontextprotocol/sdk@1.0.0 (protocol 2024-11-05) could not read content type resource_link';

/** 2 cells × 2 clients × 2 Node = 8 variants; the old client fails on v2-latest with Node 22; one variant lost. */
function axesRun() {
  const run = makeRun(
    variantSpecs(
      {
        [OLD_CLIENT_FAILS]: {
          phases: { stdio: { verdict: 'failed', message, step: 'tools/call add-note' } },
          summary: { protocolVersion: '2024-11-05' },
        },
      },
      undefined,
      [CLIENT_OLD, CLIENT_NEW],
      [NODE_20, NODE_22],
    ),
  );
  const cells = run.cells.filter((c) => c.id !== 'v1-latest~client-latest-2~node-20');
  return { ...run, cells };
}

describe('the table with axes', () => {
  test('one row per variant grouped by cell (later rows ditto the pin), Client (pin → version, protocol) and Node columns', () => {
    expect(renderTable(axesRun()).split('\n')).toEqual([
      '| Pin (role) | Client (pin → version, protocol) | Node.js | Tools | Resources | Resource templates | Prompts | leaked handles | stdio | HTTP (401 + round trip) | bind refusal | conformance suite | time |',
      '| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- |',
      '| latest@1 → 1.32.2 (latest supported 1.x) | 1.0.0 · 2025-06-18 | 20 → v20.19.5 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
      '| ″ | 1.0.0 · 2025-06-18 | 22 → v22.11.0 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
      '| ″ — no result | latest@2 → 2.1.0 · — | 20 → v20.19.5 | — | — | — | — | not measured | not measured | not measured | not measured | not measured | — |',
      '| ″ | latest@2 → 2.1.0 · 2025-06-18 | 22 → v22.11.0 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
      '| latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0 | 1.0.0 · 2025-06-18 | 20 → v20.19.5 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
      '| ″ | 1.0.0 · 2024-11-05 | 22 → v22.11.0 | 5 | — | 2 | 2 | none | FAIL | ok | ok | ok | 5.0 s |',
      '| ″ | latest@2 → 2.1.0 · 2025-06-18 | 20 → v20.19.5 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
      '| ″ | latest@2 → 2.1.0 · 2025-06-18 | 22 → v22.11.0 | 5 | — | 2 | 2 | none | ok | ok | ok | ok | 5.0 s |',
    ]);
  });

  test('the headline counts variants of cells; a constant column goes to the header line "(every variant)"', () => {
    const title = renderTitle(axesRun());
    expect(title).toContain('\n\n8 variants of 2 cells: 6 passed, 1 failed, 1 not measured · exit code 1\n');
    expect(title).toContain(
      `**Why FAILED:** missing variant: v1-latest\\~client-latest-2\\~node-20 (no result); phases failed: v2-latest\\~client-1.0.0\\~node-22 · stdio`,
    );
    expect(title).toContain('\n\npackage version 0.3.0 (every variant)');
    // One Node for every variant: the Node column moves to the header line, as without axes.
    const oneNode = makeRun(variantSpecs());
    expect(renderTitle(oneNode)).toContain('\n\nNode.js 22 → v22.11.0 · package version 0.3.0 (every variant)');
    expect(renderTable(oneNode).split('\n')[0]).toBe(
      '| Pin (role) | Client (pin → version, protocol) | Tools | Resources | Resource templates | Prompts | leaked handles | stdio | HTTP (401 + round trip) | bind refusal | conformance suite | time |',
    );
  });

  test("a cell without a client axis shows its own client; a Node axis alone keeps the protocol column; a server's other Node is named", () => {
    const mixed = makeRun([FOUR_CELLS[0]!, ...variantSpecs({}, [FOUR_CELLS[3]!], [CLIENT_OLD], [])]);
    const rows = renderTable(mixed).split('\n');
    expect(rows[2]).toMatch(/^\| 1\.24\.0 \(lower supported boundary\) \| own 1\.24\.0 · 2025-06-18 \|/);
    expect(rows[3]).toMatch(/\| 1\.0\.0 · 2025-06-18 \|/);
    const nodeOnly = makeRun(variantSpecs({}, [FOUR_CELLS[1]!], [], [NODE_20, NODE_22]));
    // No environment evidence: the planned Node; evidence that disagrees with the plan: both.
    delete nodeOnly.cells[0]!.environment;
    nodeOnly.cells[1]!.environment!.node = 'v22.12.0';
    const table = renderTable(nodeOnly).split('\n');
    expect(table[0]).toContain('| Node.js |');
    expect(table[0]).toContain('| protocol |');
    expect(table[0]).not.toContain('Client');
    expect(table[2]).toContain('| 20 → v20.19.5 |');
    expect(table[3]).toContain('| 22 → v22.11.0 (the server reported v22.12.0) |');
  });

  test('the failure section names the variant, its client and Node; a lost variant its own --cell run', () => {
    const md = renderMarkdown(axesRun());
    expect(md).toContain(
      [
        `### v2-latest\\~client-1.0.0\\~node-22 · stdio`,
        '',
        `**FAIL**: tools/call add-note: client @modelcontextprotocol/sdk@1.0.0 (protocol 2024-11-05) could not read content type resource_link`,
        '',
        '- Cell: latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0',
        '- Client: @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · protocol 2024-11-05',
        '- Node: 22 → v22.11.0',
        '- Step: tools/call add-note',
      ].join('\n'),
    );
    expect(md).toContain(
      '**not measured**: no result was recorded for this variant (latest@1 → 1.32.2 (latest supported 1.x) · client @modelcontextprotocol/client@2.1.0 (pin latest@2) · Node 20 → v20.19.5).',
    );
    expect(md).toContain('npx mcp-matrix run --config matrix.config.ts --cell v1-latest~client-latest-2~node-20\n');
    // The environment section of each variant starts with its client and Node.
    expect(md).toContain(
      '### v1-latest\\~client-1.0.0\\~node-20: latest@1 → 1.32.2 (latest supported 1.x)\n\n- Client: @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · protocol 2025-06-18\n- Node: 20 → v20.19.5\n- Node v20.19.5 · npm',
    );
  });
});

describe('where the client came from', () => {
  test("a failed variant's section names its client install: cached or not, when, and its lockfile", () => {
    const run = axesRun();
    const row = run.cells.find((c) => c.id === OLD_CLIENT_FAILS)!;
    row.clientInstall = { source: 'cache', installedAt: '2026-11-28T09:00:00.000Z', lockfileSha256: 'cd'.repeat(32), cacheEntry: 'k/e' };
    const md = renderMarkdown(run);
    expect(md).toContain(
      `- Client: @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · protocol 2024-11-05\n- Client install: from the client cache (2026-11-28) · package-lock.json sha256 ${'cd'.repeat(6)}…\n- Node: 22 → v22.11.0`,
    );
    row.clientInstall = { ...row.clientInstall, source: 'run' };
    expect(renderMarkdown(run)).toContain('- Client install: installed by this run (2026-11-28)');
    row.clientInstall = { ...row.clientInstall, source: 'installed' };
    expect(renderMarkdown(run)).toContain('- Client install: installed into the client cache (2026-11-28)');
  });
});

describe('the environment with axes', () => {
  test("a cell's later variants name its one server install instead of repeating it; a different install is shown in full", () => {
    const run = axesRun();
    const md = renderMarkdown(run);
    expect(md).toContain(
      [
        '### v1-latest\\~client-1.0.0\\~node-22: latest@1 → 1.32.2 (latest supported 1.x)',
        '',
        '- Client: @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · protocol 2025-06-18',
        '- Node: 22 → v22.11.0',
        '- Node v22.11.0 · npm 10.9.0 · linux x64 · harness 0.1.0',
        `- Server install: the one of v1-latest\\~client-1.0.0\\~node-20 above (same lockfile sha256 \`${'ab'.repeat(32)}\`, same SDK copies)`,
        '',
        '### ',
      ].join('\n'),
    );
    // Once per cell, plus the lost variant (no evidence: its planned install set).
    expect(md.match(/- Install set: /g)).toHaveLength(3);
    // A variant whose tree differs (another lockfile) gets its full evidence.
    run.cells[1]!.environment!.lockfileSha256 = 'cd'.repeat(32);
    expect(renderMarkdown(run).match(/- Install set: /g)).toHaveLength(4);
  });
});

describe('JUnit, annotations and the terminal with axes', () => {
  test('a testsuite per variant named by its id, its testcases classed by the variant id, its axes as properties', () => {
    const xml = renderJunit(axesRun());
    expect(xml.match(/<testsuite /g)).toHaveLength(8);
    expect(xml).toContain(
      '<testsuite name="v2-latest~client-1.0.0~node-22 (latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0 · client @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · Node 22 → v22.11.0)" tests="6" failures="1" errors="0" skipped="0"',
    );
    for (const prop of [
      '<property name="cell" value="v2-latest"/>',
      '<property name="client" value="1.0.0"/>',
      '<property name="client:package" value="@modelcontextprotocol/sdk"/>',
      '<property name="client:version" value="1.0.0"/>',
      '<property name="node" value="22"/>',
      '<property name="node:version" value="22.11.0"/>',
      '<property name="protocol" value="2024-11-05"/>',
    ])
      expect(xml).toContain(prop);
    expect(xml).toContain(
      `<testcase classname="${OLD_CLIENT_FAILS}" name="stdio" time="1.000">\n      <failure message="${message}" type="failure">`,
    );
    // The lost variant: six not-measured testcases under its own id.
    expect(xml.match(/classname="v1-latest~client-latest-2~node-20"[^>]*>\s*<error /g)).toHaveLength(6);
    // Without axes nothing is added.
    expect(renderJunit(makeRun())).not.toMatch(/name="(cell|client|node|protocol)"/);
  });

  test('annotations and terminal lines name the variant id, the cell, the client and the Node', () => {
    const lines = renderAnnotations(axesRun());
    // Errors first (the cap never cuts an error for a warning), then the warnings.
    expect(lines).toEqual([
      `::error title=mcp-matrix ${OLD_CLIENT_FAILS} · stdio failed::latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0 · client @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · Node 22 → v22.11.0: ${message}%0Astep: tools/call add-note%0Arepro: npx mcp-matrix run --cell ${OLD_CLIENT_FAILS}`,
      '::warning title=mcp-matrix v1-latest~client-latest-2~node-20%3A not measured::latest@1 → 1.32.2 (latest supported 1.x) · client @modelcontextprotocol/client@2.1.0 (pin latest@2) · Node 20 → v20.19.5: no result was recorded for this variant.%0Arepro: npx mcp-matrix run --config matrix.config.ts --cell v1-latest~client-latest-2~node-20',
    ]);
    expect(renderTerminalFailures(axesRun())).toEqual([
      `${OLD_CLIENT_FAILS} · stdio: FAIL: ${message}`,
      '  step: tools/call add-note',
      `  reproduce: npx mcp-matrix run --cell ${OLD_CLIENT_FAILS}`,
    ]);
  });
});

describe('an allowance on a cell with variants', () => {
  test('a passing variant of an allowed-to-fail cell is a stale allowance whose advice is the baseline, everywhere', () => {
    const run = makeRun(
      variantSpecs(
        { [OLD_CLIENT_FAILS]: { phases: { stdio: { verdict: 'failed', message } } } },
        [{ ...FOUR_CELLS[3]!, allowedToFail: true }],
        [CLIENT_OLD, CLIENT_NEW],
        [NODE_22],
      ),
    );
    const passing = 'v2-latest~client-latest-2~node-22';
    expect(run).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(renderMarkdown(run)).toContain(
      `### v2-latest\\~client-latest-2\\~node-22 · stale allowance\n\n**FAIL**: every phase of this variant passed, but its cell is marked \`allowedToFail\`. The allowance is stale for this variant and fails the run: remove \`allowedToFail\` from cell v2-latest in the config and list its variants that still fail in the baseline (mcp-matrix.baseline.json).`,
    );
    expect(renderAnnotations(run)).toContain(
      `::error title=mcp-matrix ${passing}%3A stale allowance::latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0 · client @modelcontextprotocol/client@2.1.0 (pin latest@2) · Node 22 → v22.11.0 passed every phase but is marked allowedToFail: remove allowedToFail from cell v2-latest and list its variants that still fail in the baseline (mcp-matrix.baseline.json).%0Arepro: npx mcp-matrix run --cell ${passing}`,
    );
    expect(renderJunit(run)).toContain(
      'message="stale allowance: every phase passed but the cell is marked allowedToFail; remove allowedToFail from cell v2-latest and list its variants that still fail in the baseline (mcp-matrix.baseline.json)"',
    );
  });
});
