// The reports of a run with a client axis, through the real CLI: fixtures/broken/resource-link-only (clients
// 1.0.0 and latest@1 on one cell) packed once, each variant run alone as a fan-out job would, then merged under
// GitHub Actions and re-rendered with `report`. One row per variant with its client, JUnit valid against
// junit-10.xsd with the variant id as classname, annotations naming the variant, a lost variant naming its run.
import { execFile } from 'node:child_process';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, type CliOutcome } from './helpers/cli.js';

const OLD = 'latest-1~client-1.0.0';
const NEW = 'latest-1~client-latest-1';
const CONFIG = path.join(ROOT, 'fixtures/broken/resource-link-only/matrix.config.ts');

let work: string;
let pieces: Record<string, CliOutcome>;
let merged: CliOutcome;
let summary: string;
let results: RunResult;
let tarballName: string;

beforeAll(async () => {
  work = await tempDir('mm-variant-reports-');
  await promisify(execFile)(
    'npm',
    ['pack', '--silent', '--pack-destination', work, path.join(ROOT, 'fixtures/broken/resource-link-only')],
    {
      cwd: work,
    },
  );
  const [tarball] = (await readdir(work)).filter((f) => f.endsWith('.tgz'));
  tarballName = tarball!;
  const run = (id: string) =>
    cli(
      [
        'run',
        '--config',
        CONFIG,
        '--cell',
        id,
        '--tarball',
        path.join(work, tarball!),
        '--out',
        path.join(work, 'pieces', id),
        '--progress',
        'silent',
      ],
      {
        timeoutMs: 300_000,
      },
    );
  // One after the other: two cores shared with the rest of the suite.
  pieces = { [OLD]: await run(OLD), [NEW]: await run(NEW) };
  await writeFile(path.join(work, 'summary.md'), '');
  merged = await cli(['merge', `pieces/${OLD}/results.json`, `pieces/${NEW}/results.json`, '--out', 'merged'], {
    cwd: work,
    env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(work, 'summary.md') },
  });
  summary = await readFile(path.join(work, 'summary.md'), 'utf8');
  results = await readResults(path.join(work, 'merged'));
}, 700_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('reports of a run with a client axis (fan-out pieces merged)', () => {
  it('each piece is one variant: the old client fails (exit 1), the current one passes (exit 0)', () => {
    expect(pieces[OLD]!.code, pieces[OLD]!.stderr).toBe(1);
    expect(pieces[NEW]!.code, pieces[NEW]!.stderr).toBe(0);
    expect(merged.code, merged.stderr).toBe(1);
    expect(results.schemaVersion).toBe(2);
    expect(results.cells.map((c) => [c.id, c.cell, c.client?.version])).toEqual([
      [OLD, 'latest-1', '1.0.0'],
      [NEW, 'latest-1', results.cells[1]!.version],
    ]);
  });

  it('matrix.md: one row per variant grouped by cell, the Client column, the failure naming client and protocol', async () => {
    const md = await readFile(path.join(work, 'merged', 'matrix.md'), 'utf8');
    const version = results.cells[0]!.version;
    expect(md).toContain('\n\n2 variants of 1 cell: 1 passed, 1 failed · exit code 1\n');
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    expect(rows[0]).toMatch(/^\| Pin \(role\) \| Client \(pin → version, protocol\) \| Tools \|/);
    expect(rows[2]).toMatch(
      new RegExp(
        `^\\| latest@1 → ${version.replace(/\./g, '\\.')} \\(latest 1\\.x\\) \\| 1\\.0\\.0 · 2024-11-05 \\| 3 \\|.* \\| FAIL \\| skipped \\(`,
      ),
    );
    expect(rows[3]).toMatch(
      new RegExp(
        `^\\| ″ \\| latest@1 → ${version.replace(/\./g, '\\.')} · 20\\d\\d-\\d\\d-\\d\\d \\| 3 \\|.* \\| ok \\| ok(?: · warn [^|]+)? \\| ok \\| skipped \\(off: MCP_MATRIX_CONFORMANCE\\) \\|`,
      ),
    );
    expect(md).toContain('### latest-1\\~client-1.0.0 · stdio');
    expect(md).toContain('- Client: @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · protocol 2024-11-05\n');
    // The variant's own repro: that variant alone, with the same config and tarball.
    // (paths as given, relative to the directory the pieces ran in).
    expect(md).toContain(
      `bin/mcp-matrix.js run --cell ${OLD} --config ${path.relative(ROOT, CONFIG)} --tarball ${path.relative(ROOT, path.join(work, tarballName))}\n`,
    );
  });

  it('junit.xml is valid against junit-10.xsd: a testsuite per variant and one for answer parity, the failure classed by the variant id', async () => {
    const xml = await readFile(path.join(work, 'merged', 'junit.xml'), 'utf8');
    const schema = await readFile(path.join(ROOT, 'test/reports/fixtures/junit-10.xsd'), 'utf8');
    const checked = await validateXML({
      xml: [{ fileName: 'junit.xml', contents: xml }],
      schema: [{ fileName: 'junit-10.xsd', contents: schema }],
    });
    expect(checked.errors.map((e) => e.rawMessage)).toEqual([]);
    // One per variant, and the answer parity suite (the steps' answers compared across them).
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml).toMatch(/<testsuite name="parity" tests="\d+"/);
    expect(xml).toMatch(
      new RegExp(
        `<testcase classname="${OLD}" name="stdio" time="[\\d.]+">\\n\\s*<failure message="tools/call find_doc: the client @modelcontextprotocol/sdk@1\\.0\\.0`,
      ),
    );
    expect(xml).toContain('<property name="client:version" value="1.0.0"/>');
  });

  it('GitHub: the step summary has the table, one ::error names the variant, its client and the failed sub-check', () => {
    expect(summary).toContain('| Pin (role) | Client (pin → version, protocol) |');
    const errors = merged.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^::error title=mcp-matrix ${OLD} · stdio › session failed::latest@1 → [\\d.]+ \\(latest 1\\.x\\) · client @modelcontextprotocol/sdk@1\\.0\\.0 \\(pin 1\\.0\\.0\\): tools/call find_doc`,
      ),
    );
  });

  it('report re-renders the merged files byte for byte; merge without a variant names it and its --cell run', async () => {
    await cp(path.join(work, 'merged'), path.join(work, 'again'), { recursive: true });
    const again = await cli(['report', 'again/results.json'], { cwd: work });
    expect(again.code, again.stderr).toBe(0);
    for (const f of ['results.json', 'matrix.md', 'matrix.html', 'matrix.sarif', 'junit.xml'])
      expect(await readFile(path.join(work, 'again', f), 'utf8')).toBe(await readFile(path.join(work, 'merged', f), 'utf8'));
    const lost = await cli(['merge', `pieces/${NEW}/results.json`, '--out', 'lost'], { cwd: work });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain(
      `merge: variant ${OLD} of cell latest-1 (pin latest@1) has no evidence: no piece contains it. The \`mcp-matrix run --cell ${OLD}\` run produced no results.json`,
    );
  });
});
