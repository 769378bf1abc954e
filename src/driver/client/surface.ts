// What a listed item takes (a tool's arguments, a prompt's arguments, a resource's URI), recorded so
// that `mcp-matrix init` can write example steps from the real server. Bounded: a server may list thousands.

import { createHash } from 'node:crypto';
import type { ItemShape } from '../../results/types.js';

export type { ItemShape };

const MAX_ITEMS = 50;
const MAX_PROPERTIES = 20;

export function itemShapes(kind: string, items: Record<string, unknown>[]): ItemShape[] {
  return items.slice(0, MAX_ITEMS).map((item) => {
    const name = String(item.name ?? item.uri ?? item.uriTemplate);
    const uri = typeof item.uri === 'string' ? item.uri : typeof item.uriTemplate === 'string' ? item.uriTemplate : undefined;
    if (kind === 'tools') return { name, arguments: toolArguments(item.inputSchema) };
    if (kind === 'prompts') return { name, arguments: promptArguments(item.arguments) };
    return uri === undefined ? { name } : { name, uri };
  });
}

function toolArguments(schema: unknown): Record<string, string> {
  if (!isRecord(schema) || !isRecord(schema.properties)) return {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const out: Record<string, string> = {};
  for (const key of required.slice(0, MAX_PROPERTIES)) {
    const prop = schema.properties[key];
    const type = isRecord(prop) ? (Array.isArray(prop.type) ? prop.type[0] : prop.type) : undefined;
    out[key] = typeof type === 'string' ? type : 'unknown';
  }
  return out;
}

function promptArguments(args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(args)) return out;
  for (const a of args.slice(0, MAX_PROPERTIES))
    if (isRecord(a) && typeof a.name === 'string' && a.required === true) out[a.name] = 'string';
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// The surface as parity and the snapshot compare it: one entry per tool, resource template and
// prompt, keyed `tool add`, with keys sorted and `$schema` dropped. Bounded: a field too large to
// keep as evidence is replaced by its size and hash, which still compares.
const MAX_PARITY_ITEMS = 200;
const MAX_FIELD_CHARS = 16_384;

const PARITY_FIELDS: Record<string, { label: string; fields: string[] }> = {
  tools: { label: 'tool', fields: ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] },
  resourceTemplates: { label: 'resource template', fields: ['uriTemplate', 'title', 'description', 'mimeType', 'annotations'] },
  prompts: { label: 'prompt', fields: ['title', 'description', 'arguments'] },
};

export function parityItems(kind: string, items: Record<string, unknown>[], into: Record<string, unknown>): void {
  const spec = PARITY_FIELDS[kind];
  if (!spec) return;
  for (const item of items.slice(0, MAX_PARITY_ITEMS)) {
    const entry: Record<string, unknown> = {};
    for (const field of spec.fields) if (item[field] !== undefined) entry[field] = boundedField(normaliseJson(item[field]));
    into[`${spec.label} ${String(item.name ?? item.uriTemplate)}`] = entry;
  }
}

export function normaliseJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseJson);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) if (key !== '$schema') out[key] = normaliseJson(value[key]);
  return out;
}

function boundedField(value: unknown): unknown {
  const text = JSON.stringify(value) ?? '';
  if (text.length <= MAX_FIELD_CHARS) return value;
  return { $truncated: { chars: text.length, sha256: createHash('sha256').update(text).digest('hex') } };
}
