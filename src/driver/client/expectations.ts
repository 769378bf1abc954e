// Pure checks of what a server returned against what the config expects. Each returns a one-line
// reason, or null when the expectation holds, so phases can put it straight into a PhaseResult.

import type { Step, SurfaceExpectation } from '../../contract/protocol.js';

export type SurfaceKind = keyof SurfaceExpectation;

const LABEL: Record<SurfaceKind, string> = {
  tools: 'tools',
  resources: 'resources',
  resourceTemplates: 'resource templates',
  prompts: 'prompts',
};

function itemKeys(item: Record<string, unknown>): string[] {
  return ['name', 'uri', 'uriTemplate'].map((k) => item[k]).filter((v): v is string => typeof v === 'string');
}

function itemName(item: Record<string, unknown>): string {
  return itemKeys(item)[0] ?? JSON.stringify(item).slice(0, 60);
}

/** `items === null` means the capability was not advertised (an empty surface). */
export function checkSurface(
  kind: SurfaceKind,
  expected: number | string[] | undefined,
  items: Record<string, unknown>[] | null,
): string | null {
  if (expected === undefined) return null;
  const list = items ?? [];
  const unadvertised =
    items === null ? ` (the server does not advertise the ${kind === 'resourceTemplates' ? 'resources' : kind} capability)` : '';
  if (typeof expected === 'number') {
    if (list.length === expected) return null;
    return `${LABEL[kind]}: expected ${expected}, found ${list.length}${unadvertised}`;
  }
  // An expected entry may name the item or give its URI / URI template.
  const missing = expected.filter((want) => !list.some((item) => itemKeys(item).includes(want)));
  const extra = list.filter((item) => !expected.some((want) => itemKeys(item).includes(want))).map(itemName);
  if (missing.length === 0 && extra.length === 0) return null;
  const parts: string[] = [];
  if (missing.length) parts.push(`missing ${missing.join(', ')}`);
  if (extra.length) parts.push(`unexpected ${extra.join(', ')}`);
  return `${LABEL[kind]}: ${parts.join('; ')}${unadvertised}`;
}

export function stepLabel(step: Step): string {
  if ('tool' in step) return `tools/call ${step.tool}`;
  if ('resource' in step) return `resources/read ${step.resource}`;
  return `prompts/get ${step.prompt}`;
}

/** The path of the first difference, or null when `expected` is a deep subset of `actual`. */
export function subsetMismatch(expected: unknown, actual: unknown, path = '$'): string | null {
  if (expected === null || typeof expected !== 'object') {
    return Object.is(expected, actual)
      ? null
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual) ?? 'undefined'}`;
  }
  if (actual === null || typeof actual !== 'object')
    return `${path}: expected an ${Array.isArray(expected) ? 'array' : 'object'}, got ${JSON.stringify(actual) ?? 'undefined'}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array`;
    if (expected.length !== actual.length) return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const m = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  for (const [key, value] of Object.entries(expected)) {
    const m = subsetMismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
    if (m) return m;
  }
  return null;
}

function texts(blocks: unknown): string {
  if (!Array.isArray(blocks)) return '';
  return blocks
    .map((b: unknown) => {
      const block = b as { text?: unknown; type?: unknown; resource?: { text?: unknown } } | null;
      if (typeof block?.text === 'string') return block.text;
      if (typeof block?.resource?.text === 'string') return block.resource.text;
      return '';
    })
    .join('\n');
}

function quote(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > 200 ? t.slice(0, 200) + '…' : t);
}

export function checkToolResult(step: Extract<Step, { tool: string }>, result: Record<string, unknown>): string | null {
  const wantError = step.expect?.isError ?? false;
  const isError = result.isError === true;
  const text = texts(result.content);
  if (isError !== wantError) {
    return wantError ? `expected isError, got a success: ${quote(text)}` : `returned isError: ${quote(text)}`;
  }
  if (step.expect?.text !== undefined && !text.includes(step.expect.text)) {
    return `text does not contain ${JSON.stringify(step.expect.text)}: ${quote(text)}`;
  }
  if (step.expect?.structuredContent) {
    const m = subsetMismatch(step.expect.structuredContent, result.structuredContent, 'structuredContent');
    if (m) return m;
  }
  return null;
}

export function checkResourceResult(step: Extract<Step, { resource: string }>, result: Record<string, unknown>): string | null {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length === 0) return 'returned no contents';
  const text = texts(contents);
  if (step.expect?.text !== undefined && !text.includes(step.expect.text)) {
    return `text does not contain ${JSON.stringify(step.expect.text)}: ${quote(text)}`;
  }
  return null;
}

export function checkPromptResult(step: Extract<Step, { prompt: string }>, result: Record<string, unknown>): string | null {
  const messages = Array.isArray(result.messages) ? (result.messages as { content?: unknown }[]) : [];
  if (step.expect?.messages !== undefined && messages.length !== step.expect.messages) {
    return `expected ${step.expect.messages} messages, got ${messages.length}`;
  }
  const text = texts(messages.map((m) => m.content));
  if (step.expect?.text !== undefined && !text.includes(step.expect.text)) {
    return `text does not contain ${JSON.stringify(step.expect.text)}: ${quote(text)}`;
  }
  return null;
}
