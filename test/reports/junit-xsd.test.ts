// junit.xml against junit-10.xsd (test/reports/fixtures/junit-10.xsd, from jenkinsci/xunit-plugin) with a real
// XSD validator: libxml2's xmllint, compiled to WebAssembly (xmllint-wasm), so CI needs no system package.
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { renderJunit } from '../../src/reports/index.js';
import { CLIENT_NEW, CLIENT_OLD, FOUR_CELLS, makeRun, NODE_20, NODE_22, variantSpecs } from './helpers/make-run.js';

const XSD = new URL('./fixtures/junit-10.xsd', import.meta.url);

async function validate(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  const schema = await readFile(XSD, 'utf8');
  const result = await validateXML({
    xml: [{ fileName: 'junit.xml', contents: xml }],
    schema: [{ fileName: 'junit-10.xsd', contents: schema }],
  });
  return { valid: result.valid, errors: result.errors.map((e) => e.rawMessage) };
}

// The XSD validator on real reports: 4-6 s per test seen beside test:unit under load 27, so a hang guard above that.
describe('junit.xml is valid against junit-10.xsd', { timeout: 60_000 }, () => {
  test('every verdict, an allowed failure, a stale allowance, a cell without a result and hostile text', async () => {
    const [floor, v1, rep, latest] = FOUR_CELLS;
    const nasty = 'a & b <c> ]]> "q" \u0000\u0007\u001b[31mred\u001b[0m \ud800 end';
    const run = makeRun([
      { ...floor!, phases: { stdio: { verdict: 'failed', message: nasty, step: 'tools/list', stderrTail: nasty, stdoutNoise: [nasty] } } },
      {
        ...v1!,
        phases: {
          // Sub-checks: a warning (system-out), one off (skipped), one passed, one not measured at require (error).
          http: {
            verdict: 'not-measured',
            message: 'registry down',
            checks: [
              { id: 'origin', outcome: 'failed', level: 'warn', message: nasty },
              { id: 'host', outcome: 'skipped', level: 'off', message: 'off in the config (not run)' },
              { id: 'protocol-version', outcome: 'passed', level: 'require', message: '400' },
              { id: 'session-ended-404', outcome: 'not-measured', level: 'require', message: nasty },
            ],
          },
          bind: { verdict: 'skipped', message: 'not configured' },
        },
      },
      { ...rep!, allowedToFail: true, phases: { leaks: { verdict: 'failed', message: 'still running' } } },
      { ...latest!, allowedToFail: true },
    ]);
    run.plan.cells.push({ ...run.plan.cells[0]!, id: 'lost' });
    const xml = renderJunit(run);
    expect(xml).toContain('<system-out>WARN origin: ');
    expect(xml).toContain('type="stale-allowance"');
    expect(xml).toContain('type="allowed-failure"');
    expect(xml).toContain('<skipped');
    expect(await validate(xml)).toEqual({ valid: true, errors: [] });
  });

  test('a run of variants (client and Node axes, a failed, an allowed-to-fail and a lost variant) is valid too', async () => {
    const run = makeRun(
      variantSpecs(
        {
          'v2-latest~client-1.0.0~node-20': { phases: { stdio: { verdict: 'failed', message: 'could not read <resource_link> & more' } } },
          'v1-latest~client-latest-2~node-22': { phases: { http: { verdict: 'skipped', message: 'client 1.9.0 has no Streamable HTTP' } } },
        },
        [FOUR_CELLS[1]!, { ...FOUR_CELLS[3]!, allowedToFail: true }],
        [CLIENT_OLD, CLIENT_NEW],
        [NODE_20, NODE_22],
      ),
    );
    run.cells = run.cells.filter((c) => c.id !== 'v1-latest~client-1.0.0~node-20');
    const xml = renderJunit(run);
    expect(xml.match(/<testsuite /g)).toHaveLength(8);
    expect(xml).toContain('<property name="node:version" value="20.19.5"/>');
    expect(xml).toContain('type="allowed-failure"');
    expect(await validate(xml)).toEqual({ valid: true, errors: [] });
  });

  test('the validator rejects what junit-10.xsd rejects (a skipped attribute on the root, properties in a testcase)', async () => {
    const xml = renderJunit(makeRun());
    const rootSkipped = xml.replace(/<testsuites ([^>]*)>/, '<testsuites $1 skipped="0">');
    const bad = await validate(rootSkipped);
    expect(bad.valid).toBe(false);
    expect(bad.errors.join('\n')).toMatch(/skipped/);
    const caseProps = xml.replace('name="stdio" time="1.000"/>', 'name="stdio" time="1.000"><properties/></testcase>');
    expect((await validate(caseProps)).valid).toBe(false);
  });
});
