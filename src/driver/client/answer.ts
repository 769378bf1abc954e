// A step's answer as parity compares it across cells: the fields a port between SDK majors loses, text and
// blobs as digests; values that legitimately vary are declared per step (`vary`) and masked, never guessed.

import { createHash } from 'node:crypto';
import type { Step } from '../../contract/protocol.js';

export const VARIES = '(varies)';

type Json = Record<string, unknown>;

/** `sha256:<12 hex> (<n> chars)`: equal text gives equal digests; the length shows what changed. */
export function digest(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)} (${text.length} chars)`;
}

/**
 * The normalised answer of a step: `wire` is the result as it came over the wire (or the client's
 * result); an answer that is a JSON-RPC error is `{ error: { code } }` (the message text is the SDK's).
 */
export function normaliseAnswer(step: Step, wire: unknown, errorCode?: number): Json {
  if (errorCode !== undefined) return mask({ error: { code: errorCode } }, step);
  const r = isRecord(wire) ? wire : {};
  let out: Json;
  if ('tool' in step) {
    out = { isError: r.isError === true, content: list(r.content).map(contentItem) };
    if (r.structuredContent !== undefined) out.structuredContent = structuredClone(r.structuredContent);
  } else if ('resource' in step) {
    out = { contents: list(r.contents).map(resourceContents) };
  } else {
    out = {
      messages: list(r.messages).map((m) => (isRecord(m) ? { role: m.role, content: contentItem(m.content) } : { invalid: typeof m })),
    };
  }
  const meta = metaKeys(r);
  if (meta) out._meta = meta;
  return mask(out, step);
}

function contentItem(item: unknown): Json {
  if (!isRecord(item)) return invalid(item);
  return recorded(item, { type: item.type }, 'data', (out) => {
    for (const key of ['uri', 'name', 'title', 'description', 'size'] as const) if (item[key] !== undefined) out[key] = item[key];
    if (isRecord(item.resource)) out.resource = resourceContents(item.resource);
  });
}

function resourceContents(item: unknown): Json {
  if (!isRecord(item)) return invalid(item);
  return recorded(item, { uri: item.uri }, 'blob');
}

/**
 * What a content item and a resource's contents record alike, in this order (as they always were: results.json
 * and mcp-surface.json keep it): mimeType, the text and the binary field digested, the item's own keys (`own`),
 * annotations, the _meta keys.
 */
function recorded(item: Json, out: Json, binary: 'data' | 'blob', own?: (out: Json) => void): Json {
  if (item.mimeType !== undefined) out.mimeType = item.mimeType;
  if (typeof item.text === 'string') out.text = digest(item.text);
  const bytes = item[binary];
  if (typeof bytes === 'string') out[binary] = digest(bytes);
  own?.(out);
  if (item.annotations !== undefined) out.annotations = structuredClone(item.annotations);
  const meta = metaKeys(item);
  if (meta) out._meta = meta;
  return out;
}

function invalid(item: unknown): Json {
  return { invalid: item === null ? 'null' : typeof item };
}

function metaKeys(value: Json): string[] | undefined {
  return isRecord(value._meta) ? Object.keys(value._meta).sort() : undefined;
}

/** Each of the step's `vary` paths (`content[0].text`, `structuredContent.id`) that exists is replaced by VARIES. */
function mask(answer: Json, step: Step): Json {
  for (const path of step.vary ?? []) {
    const keys = path.match(/[^.[\]]+/g) ?? [];
    let parent: unknown = answer;
    for (const key of keys.slice(0, -1)) parent = child(parent, key);
    const last = keys[keys.length - 1];
    if (last === undefined) continue;
    if (isRecord(parent) && last in parent) parent[last] = VARIES;
    else if (Array.isArray(parent) && /^\d+$/.test(last) && Number(last) < parent.length) parent[Number(last)] = VARIES;
  }
  return answer;
}

function child(value: unknown, key: string): unknown {
  if (isRecord(value)) return value[key];
  return Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : undefined;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
