import { describe, expect, it } from 'vitest';
import { capabilityOf, catalogue, fixtureOf, parseScenarioList, scenarioSources } from '../../src/cells/conformance-catalogue.js';
import { advertises, judgeScenario, outOfScope, summarize } from '../../src/driver/phases/conformance.js';

// Shaped as the suite's bundle emits its scenario classes (template and plain-string descriptions).
const BUNDLE = [
  'var a=class{constructor(){this.name=`ping`,this.specVersions=[`2025-06-18`],this.description=`Test ping.\\n\\n**Endpoint**: \\`ping\\``}async run(e){return[]}}',
  'b=class{constructor(){this.name=`tools-list`,this.specVersions=[`2025-06-18`],this.description=`List.\\n**Endpoint**: \\`tools/list\\``}}',
  'c=class{constructor(){this.name=`logging-set-level`,this.specVersions=[`2025-06-18`],this.description="Set.\\n**Endpoint**: `logging/setLevel`"}}',
  'd=class{constructor(){this.name=`tools-call-simple-text`,this.specVersions=[`2025-06-18`],this.description=`Implement tool \\`test_simple_text\\` with no arguments`}}',
  'e=class{constructor(){this.name=`resources-unsubscribe`,this.specVersions=[`2025-06-18`],this.description=`**Endpoint**: \\`resources/unsubscribe\\``}async run(){await c.subscribeResource({uri:`test://watched-resource`})}}',
  'f=class{constructor(){this.name=`dns-rebinding-protection`,this.specVersions=[`2025-11-25`],this.description=`**Scope:** servers without HTTPS and without\\nauthentication.`}}',
  'g=class{constructor(){this.name=`sse-retry`,this.specVersions=[`2025-11-25`],this.description=`client scenario`}}',
].join(',');

const LIST = `Server scenarios (test against a server):
  - ping [2025-06-18]
  - tools-list [2025-06-18]
  - logging-set-level [2025-06-18]
  - tools-call-simple-text [2025-06-18]
  - resources-unsubscribe [2025-06-18]
  - dns-rebinding-protection [2025-11-25]
  - not-in-bundle [2025-11-25]

Client scenarios (test against a client):
  - sse-retry [2025-11-25]
`;

describe('conformance catalogue: what the suite itself says each scenario needs', () => {
  it('lists only the server scenarios, in order', () => {
    expect(parseScenarioList(LIST)).toEqual([
      'ping',
      'tools-list',
      'logging-set-level',
      'tools-call-simple-text',
      'resources-unsubscribe',
      'dns-rebinding-protection',
      'not-in-bundle',
    ]);
  });

  it('runs what needs no fixture (a capability only when advertised), excludes the rest with why', () => {
    const c = catalogue(parseScenarioList(LIST), scenarioSources(BUNDLE));
    expect(c.run).toEqual([
      { name: 'ping' },
      { name: 'tools-list', capability: 'tools' },
      { name: 'logging-set-level', capability: 'logging' },
      { name: 'dns-rebinding-protection', unauthenticatedOnly: true },
    ]);
    expect(c.excluded).toEqual([
      { name: 'tools-call-simple-text', why: "needs the suite's fixture test_simple_text" },
      // Named only in its code, not its description.
      { name: 'resources-unsubscribe', why: "needs the suite's fixture test://watched-resource" },
      { name: 'not-in-bundle', why: "no description found in the suite's bundle, so what it needs is unknown" },
    ]);
  });

  it('capabilities from endpoints', () => {
    expect(capabilityOf('**Endpoint**: `completion/complete`')).toBe('completions');
    expect(capabilityOf('**Endpoint**: `resources/subscribe`')).toBe('resources.subscribe');
    expect(capabilityOf('**Endpoint**: `initialize`')).toBeUndefined();
    expect(fixtureOf({ description: 'Implement a prompt named `test_simple_prompt`', code: '' })).toBe('test_simple_prompt');
    expect(fixtureOf({ description: 'nothing', code: 'name:`echo`' })).toBeUndefined();
    expect(advertises({ resources: { listChanged: true } }, 'resources')).toBe(true);
    expect(advertises({ resources: { listChanged: true } }, 'resources.subscribe')).toBe(false);
    expect(advertises({ logging: {} }, 'logging')).toBe(true);
    expect(advertises({}, 'tools')).toBe(false);
  });
});

describe('conformance verdicts from the suite checks', () => {
  it('a FAILURE check fails the scenario with its id and message; WARNING passes, named; INFO alone is not measured', () => {
    const failed = judgeScenario(
      'ping',
      [
        { id: 'ping', status: 'FAILURE', errorMessage: 'bad answer' },
        { id: 'x', status: 'SUCCESS' },
      ],
      5,
    );
    expect([failed.verdict, failed.message]).toEqual(['failed', 'ping: bad answer']);
    const warned = judgeScenario('s', [{ id: 'w', status: 'WARNING', errorMessage: 'no session' }], 5);
    expect([warned.verdict, warned.message]).toEqual(['passed', 'warning: w: no session']);
    expect(judgeScenario('s', [{ id: 'i', status: 'INFO' }], 5).verdict).toBe('not-measured');
  });

  it('the phase fails on any failed scenario (named), is not measured when one could not run, passes otherwise', () => {
    const ok = judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1);
    const bad = judgeScenario('dns', [{ id: 'r', status: 'FAILURE', errorMessage: 'got 200' }], 1);
    const lost = { name: 'tools-list', verdict: 'not-measured' as const, message: 'timed out', checks: [], durationMs: 1 };
    expect(summarize([ok, bad, lost])).toEqual({
      verdict: 'failed',
      step: 'dns',
      message: '1 of 3 scenario(s) failed: dns (r: got 200); not measured: tools-list (timed out)',
    });
    expect(summarize([ok, lost])).toMatchObject({ verdict: 'not-measured', step: 'tools-list' });
    expect(summarize([ok])).toEqual({ verdict: 'passed', message: '1/1 scenarios passed: ping' });
    expect(summarize([]).verdict).toBe('not-measured');
    const shown = outOfScope(bad);
    expect([shown.verdict, shown.outOfScope]).toEqual(['passed', true]);
    expect(shown.message).toMatch(/^shown only: .*bearer token; the suite says: r: got 200$/);
    expect(outOfScope(ok)).toBe(ok);
  });
});
