// The config schema read as data: the keys known at a path (did-you-mean) and every key with its type
// (the generated reference). zod 4 keeps its structure in `_zod.def`; only this module reads it.
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  valueType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string>;
  checks?: { _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean; minimum?: number } } }[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Through `.optional()` wrappers to the schema that decides the shape. */
function unwrap(s: z.ZodType): z.ZodType {
  let d = defOf(s);
  while ((d.type === 'optional' || d.type === 'default' || d.type === 'nullable') && d.innerType) {
    s = d.innerType;
    d = defOf(s);
  }
  return s;
}

/** The schemas a value at `path` may be checked against (several inside a union). */
function schemasAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  let current = [root];
  for (const part of path) {
    const next: z.ZodType[] = [];
    for (const s of current.flatMap(branches)) {
      const d = defOf(s);
      if (typeof part === 'number') {
        if (d.type === 'array' && d.element) next.push(d.element);
      } else if (d.type === 'object' && d.shape?.[String(part)]) next.push(d.shape[String(part)]!);
      else if (d.type === 'record' && d.valueType) next.push(d.valueType);
    }
    current = next;
  }
  return current.flatMap(branches);
}

/** A union's options (recursively), each unwrapped; any other schema is its own only branch. */
function branches(s: z.ZodType): z.ZodType[] {
  const u = unwrap(s);
  const d = defOf(u);
  return d.type === 'union' && d.options ? d.options.flatMap(branches) : [u];
}

/** The object keys a value at `path` may have, for did-you-mean. */
export function knownKeys(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = schemasAt(root, path).flatMap((s) => Object.keys(defOf(s).shape ?? {}));
  return [...new Set(keys)];
}

export interface SchemaRow {
  /** `stdio.steps[] (tool).expect.text`: dots for keys, `[]` for list items, `<name>` for record keys. */
  path: string;
  type: string;
  required: boolean;
}

/** Every key of the schema, depth first, with a short type text. */
export function schemaRows(root: z.ZodType): SchemaRow[] {
  const rows: SchemaRow[] = [];
  const visit = (s: z.ZodType, path: string, required: boolean): void => {
    // A list item or map value is described by its parent's row; its keys get their own.
    if (path && !/(\[\]|>)$/.test(path)) rows.push({ path, type: typeText(s), required });
    const options = branches(s);
    const objects = options.filter((o) => defOf(o).type === 'object');
    for (const o of objects) {
      const shape = defOf(o).shape!;
      // A union of objects (steps): each branch is named by its first key.
      const prefix = objects.length > 1 ? `${path} (${Object.keys(shape)[0]!})` : path;
      for (const [key, child] of Object.entries(shape)) visit(child, prefix ? `${prefix}.${key}` : key, !isOptional(child));
    }
    for (const o of options) {
      const d = defOf(o);
      if (d.type === 'array' && d.element && hasKeys(d.element)) visit(d.element, `${path}[]`, true);
      if (d.type === 'record' && d.valueType && hasKeys(d.valueType)) visit(d.valueType, `${path}.<${recordKeyName(path)}>`, true);
    }
  };
  visit(root, '', true);
  return rows;
}

const hasKeys = (s: z.ZodType): boolean => branches(s).some((o) => defOf(o).type === 'object');
const isOptional = (s: z.ZodType): boolean => defOf(s).type === 'optional';
const recordKeyName = (path: string): string => (path.endsWith('majors') ? 'major' : 'name');

/** `integer > 0`, `false or object`, `list of string`, `'error' | 'warn' | 'off'`. */
export function typeText(s: z.ZodType): string {
  const options = branches(s);
  if (options.length > 1) {
    const texts = options.map(typeText);
    return defOf(unwrap(s)).type === 'union' && options.every((o) => defOf(o).type === 'object')
      ? `one of ${texts.length} objects`
      : texts.join(' or ');
  }
  const d = defOf(options[0]!);
  switch (d.type) {
    case 'literal':
      return (d.values ?? []).map((v) => JSON.stringify(v)).join(' | ');
    case 'enum':
      return Object.values(d.entries ?? {})
        .map((v) => `'${v}'`)
        .join(' | ');
    case 'array':
      return `list of ${d.element ? typeText(d.element) : 'any'}`;
    case 'record':
      return `map of ${d.valueType ? typeText(d.valueType) : 'any'}`;
    case 'number':
      return numberText(d);
    default:
      return d.type;
  }
}

function numberText(d: Def): string {
  const checks = (d.checks ?? []).map((c) => c._zod.def);
  const int = checks.some((c) => c.check === 'number_format' && /int/.test(c.format ?? ''));
  const bounds = checks.flatMap((c) =>
    c.check === 'greater_than'
      ? [`${c.inclusive ? '≥' : '>'} ${String(c.value)}`]
      : c.check === 'less_than'
        ? [`${c.inclusive ? '≤' : '<'} ${String(c.value)}`]
        : [],
  );
  return [int ? 'integer' : 'number', ...bounds].join(' ');
}
