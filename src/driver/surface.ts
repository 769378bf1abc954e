// What a listed item takes (a tool's arguments, a prompt's arguments, a resource's URI), recorded so
// that `mcp-matrix init` can write example steps from the real server. Bounded: a server may list thousands.

const MAX_ITEMS = 50;
const MAX_PROPERTIES = 20;

export interface ItemShape {
  name: string;
  /** Tools: required argument names with their JSON type; prompts: required argument names. */
  arguments?: Record<string, string>;
  /** Resources: the URI; templates: the URI template. */
  uri?: string;
}

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
