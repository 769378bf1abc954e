import { describe, expect, it } from 'vitest';
import {
  capabilityOf,
  catalogue,
  fixtureOf,
  leavesTimer,
  parseScenarioList,
  scenarioSources,
} from '../../../src/cells/conformance/conformance-catalogue.js';
import { advertises } from '../../../src/driver/phases/conformance-judging.js';

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

describe('conformance catalogue: reading the suite exactly', () => {
  it('only items under a server-scenarios header (any case) count; any unindented line is a header and ends them', () => {
    const list = [
      '  - stray-before-any-header [x]',
      'SERVER SCENARIOS (test against a server):',
      '  -   spaced-name [2025-06-18]',
      '\t- tabbed',
      '  not an item',
      '  - ping',
      'Client scenarios:',
      '  - client-only',
      '  server scenarios, indented: not a header',
      '  - still-client',
    ].join('\n');
    expect(parseScenarioList(list)).toEqual(['spaced-name', 'tabbed', 'ping']);
  });

  it('a scenario named twice keeps its first class; escapes in a template description are undone; its code runs to the next class', () => {
    const bundle = [
      'this.name=`a`,this.specVersions=[`x`],this.description=`Line\\none \\`quoted\\` \\\\ end`;first();',
      'this.name=`b`,this.specVersions=[],this.description="Plain \\"string\\"";second();',
      'this.name=`a`,this.specVersions=[`y`],this.description=`Again`;third();',
    ].join('');
    const sources = scenarioSources(bundle);
    expect([...sources.keys()]).toEqual(['a', 'b']);
    expect(sources.get('a')).toEqual({ description: 'Line\none `quoted` \\ end', code: ';first();' });
    expect(sources.get('b')).toEqual({ description: 'Plain "string"', code: ';second();' });
    expect(scenarioSources('nothing here').size).toBe(0);
  });

  it('a fixture is what the description asks to implement (a run-time name said so), else a test:// or test_ name, whole words only', () => {
    expect(fixtureOf({ description: 'Implement resource template `test://template/{id}/data`', code: '' })).toBe(
      'test://template/{id}/data',
    );
    expect(fixtureOf({ description: 'Implement a tool named `${E}`', code: '' })).toBe('a tool the suite names at run time');
    expect(fixtureOf({ description: 'Implement resource `test://static-text` please', code: '' })).toBe('test://static-text');
    expect(fixtureOf({ description: 'Reads test://watched-resource then stops', code: 'test_other' })).toBe('test://watched-resource');
    expect(fixtureOf({ description: 'no fixture', code: 'callTool(`test_tool_with_logging`)' })).toBe('test_tool_with_logging');
    expect(fixtureOf({ description: 'a contest_entry is not a fixture', code: 'latest_version' })).toBeUndefined();
  });

  it('the capability is the endpoint’s head; only subscribe and unsubscribe are resources.subscribe', () => {
    expect(capabilityOf('**Endpoint**: `prompts/get`')).toBe('prompts');
    expect(capabilityOf('**Endpoint**: `resources/unsubscribe`')).toBe('resources.subscribe');
    expect(capabilityOf('**Endpoint**: `resources/subscribed`')).toBe('resources');
    expect(capabilityOf('**Endpoint**: `resources/resubscribe`')).toBe('resources');
    expect(capabilityOf('Endpoint: `tools/list`')).toBeUndefined();
    expect(capabilityOf('no endpoint')).toBeUndefined();
  });

  it('a scenario for servers without authentication is marked so, whatever the line break or case', () => {
    const sources = new Map([
      ['a', { description: 'Scope: servers WITHOUT\n  Authentication', code: '' }],
      ['b', { description: 'with authentication', code: '' }],
    ]);
    expect(catalogue(['a', 'b'], sources)).toEqual({ run: [{ name: 'a', unauthenticatedOnly: true }, { name: 'b' }], excluded: [] });
  });

  it('a scenario whose code sets a timer it never clears ends the suite process (it runs last); a cleared one does not', () => {
    const sources = new Map([
      ['streams', { description: 'd', code: 'r=new Promise(e=>setTimeout(()=>e(null),2e3));await n.cancel()' }],
      ['polled', { description: 'd', code: 't=setTimeout(f,5);clearTimeout(t)' }],
      ['plain', { description: 'd', code: 'await c.ping()' }],
    ]);
    expect(catalogue(['streams', 'polled', 'plain'], sources).run).toEqual([
      { name: 'streams', endsProcess: true },
      { name: 'polled' },
      { name: 'plain' },
    ]);
    expect(leavesTimer('setTimeout(a,1);setTimeout(b,2);clearTimeout(x)')).toBe(true);
    expect(leavesTimer('')).toBe(false);
  });

  it('a header only starts the list when it begins with "server scenarios"; the header line itself is no item', () => {
    expect(
      parseScenarioList('Server scenarios - test against a server:\n  - ping\nClient, not server scenarios:\n  - sse-retry\n'),
    ).toEqual(['ping']);
  });

  it('a fixture to implement is found by its wording alone, whatever its name, spaces or article', () => {
    expect(fixtureOf({ description: 'Implement tool `echo_back` that echoes', code: '' })).toBe('echo_back');
    expect(fixtureOf({ description: 'Implement a prompt named   `greet`', code: '' })).toBe('greet');
    expect(fixtureOf({ description: 'Implement resource template\n`notes://{id}`', code: '' })).toBe('notes://{id}');
    expect(capabilityOf('**Endpoint**:`tools/list`')).toBe('tools');
    expect(capabilityOf('**Endpoint**:   `prompts/list`')).toBe('prompts');
  });
});
