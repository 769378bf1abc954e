// init's commented example steps: one per kind the server has (tool, resource or resource template, prompt),
// from its real names and arguments, and each one a valid step once uncommented.
import { describe, expect, test } from 'vitest';
import { exampleSteps, type Detected } from '../../../src/commands/init/config-template.js';
import { validateConfig } from '../../../src/config/schema.js';

const base: Detected = { sdk: { name: '@modelcontextprotocol/sdk', version: '1.32.2' }, server: {}, surface: {}, shapes: {}, phases: {} };

/** The steps as the config would hold them once the user removes the `//`. */
function uncommented(lines: string[]): unknown[] {
  return lines.map((l) => {
    const code = l
      .trim()
      .replace(/^\/\/ /, '')
      .replace(/\},\s*(\/\/.*)?$/, '}');
    return new Function(`return (${code});`)() as unknown;
  });
}

describe('exampleSteps', () => {
  test('a tool, a resource template and a prompt: one step each, from the real names and arguments', () => {
    const lines = exampleSteps({
      ...base,
      shapes: {
        tools: [{ name: 'forecast', arguments: { city: 'string', days: 'integer', metric: 'boolean' } }, { name: 'other' }],
        resources: [],
        resourceTemplates: [{ name: 'note', uri: 'notes://{folder}/{id}' }],
        prompts: [{ name: 'brief', arguments: { city: 'string' } }],
      },
    });
    expect(lines.map((l) => l.trim())).toEqual([
      "// { tool: 'forecast', arguments: { city: 'example', days: 1, metric: true }, expect: { text: 'TODO: a part of the answer' } },",
      "// { resource: 'notes://example/example', expect: { text: 'TODO: a part of the contents' } },  // from notes://{folder}/{id}",
      "// { prompt: 'brief', arguments: { city: 'example' }, expect: { messages: 1 } },",
    ]);
    const steps = uncommented(lines);
    expect(validateConfig({ cells: [{ pin: 'latest@1' }], stdio: { steps } })).toMatchObject({ ok: true });
  });

  test('a listed resource is read by its own URI, before any template', () => {
    const lines = exampleSteps({
      ...base,
      shapes: { resources: [{ name: 'readme', uri: 'wx://readme' }], resourceTemplates: [{ name: 't', uri: 'wx://{x}' }] },
    });
    expect(lines.map((l) => l.trim())).toEqual(["// { resource: 'wx://readme', expect: { text: 'TODO: a part of the contents' } },"]);
    expect(validateConfig({ cells: [{ pin: 'latest@1' }], stdio: { steps: uncommented(lines) } })).toMatchObject({ ok: true });
  });

  test('a name with a quote stays one string; a server with nothing listed gets no example', () => {
    const lines = exampleSteps({ ...base, shapes: { tools: [{ name: "it's", arguments: { 'a-b': 'object' } }] } });
    expect(uncommented(lines)).toEqual([{ tool: "it's", arguments: { 'a-b': {} }, expect: { text: 'TODO: a part of the answer' } }]);
    expect(exampleSteps({ ...base, shapes: { tools: [], resources: [], resourceTemplates: [], prompts: [] } })).toEqual([]);
  });
});
