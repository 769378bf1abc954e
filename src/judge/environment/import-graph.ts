// Every bare import of a package's own files, found by parsing them (acorn): from the files its `bin`, `main` and
// `exports` name, following relative imports and subpath imports (`#x`). Static edges (import, export-from, an
// unguarded require) make the start path; a file reached only through import() is loaded later, if ever.
import { readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { parse, type Node } from 'acorn';
import { exportTargets } from './tarball-files.js';

export interface ScanManifest {
  name?: string;
  type?: string;
  bin?: string | Record<string, string>;
  main?: string;
  exports?: unknown;
  imports?: Record<string, unknown>;
}

/** `import` / `export-from` (ES module), `require` (CommonJS), `import()`, a require inside `try`, `require.resolve`. */
export type ImportKind = 'import' | 'export-from' | 'require' | 'import()' | 'guarded require' | 'require.resolve';

export interface FoundImport {
  /** The specifier as written, or the one a subpath import (`#x`) maps to. */
  specifier: string;
  /** The package it names (`@scope/name`, `name`). */
  packageName: string;
  /** The importing file, relative to the package (posix). */
  file: string;
  line: number;
  kind: ImportKind;
  /** On the start path: a static edge in a file the entries reach through static edges alone. */
  static: boolean;
}

export interface ImportScan {
  imports: FoundImport[];
  /** Every file parsed, relative to the package. */
  files: string[];
  /** Files that were reached but could not be parsed as JavaScript (not judged). */
  unparsed: { file: string; error: string }[];
  /** Set when the bounds below stopped the walk: what was left out is not judged. */
  truncated?: string;
}

const MAX_FILES = 4000;
const MAX_BYTES = 64 * 1024 * 1024;
const JS = /\.(c|m)?js$/;
const BUILTINS = new Set(builtinModules);

interface Edge {
  spec: string;
  line: number;
  /** Offset in the source: edges are reported in source order. */
  at: number;
  kind: ImportKind;
}

/** Scans the package at `dir` within `bounds` (files, bytes). Never throws: an unreadable file is listed as unparsed. */
export function scanImports(dir: string, manifest: ScanManifest, bounds = { files: MAX_FILES, bytes: MAX_BYTES }): ImportScan {
  const parsed = new Map<string, Edge[] | undefined>();
  const unparsed: ImportScan['unparsed'] = [];
  let bytes = 0;
  let truncated: string | undefined;
  const edgesOf = (file: string): Edge[] => {
    if (parsed.has(file)) return parsed.get(file) ?? [];
    if (parsed.size >= bounds.files || bytes >= bounds.bytes) {
      truncated ??= `stopped after ${parsed.size} files (${Math.round(bytes / 1024 / 1024)} MiB)`;
      return [];
    }
    let edges: Edge[] | undefined;
    try {
      const source = readFileSync(path.join(dir, file), 'utf8');
      bytes += source.length;
      // A bin in another language (`#!/bin/sh`) is not JavaScript: nothing to read.
      const shebang = /^#!(.*)/.exec(source)?.[1];
      edges = shebang !== undefined && !/\bnode\b/.test(shebang) ? [] : edgesIn(source, moduleFirst(file, manifest));
    } catch (error) {
      unparsed.push({ file, error: (error instanceof Error ? error.message : String(error)).split('\n')[0]! });
    }
    parsed.set(file, edges);
    return edges ?? [];
  };

  const imports: FoundImport[] = [];
  const staticFiles = new Set<string>();
  const later: string[] = [];
  // Pass 1: the start path. Pass 2: what import() (or a guarded require) reaches from anywhere.
  const walk = (roots: string[], onPath: boolean, seen: Set<string>) => {
    const queue = [...roots];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (seen.has(file) || (!onPath && staticFiles.has(file))) continue;
      seen.add(file);
      for (const edge of edgesOf(file)) {
        const isStatic = onPath && (edge.kind === 'import' || edge.kind === 'export-from' || edge.kind === 'require');
        for (const target of resolveSpecifier(dir, file, edge.spec, manifest)) {
          if (target.file !== undefined) (isStatic ? queue : onPath ? later : queue).push(target.file);
          else if (target.packageName !== undefined && target.packageName !== manifest.name)
            imports.push({
              specifier: target.specifier,
              packageName: target.packageName,
              file,
              line: edge.line,
              kind: edge.kind,
              static: isStatic,
            });
        }
      }
    }
  };
  walk(entries(dir, manifest), true, staticFiles);
  walk(later, false, new Set());
  return { imports, files: [...parsed.keys()].sort(), unparsed, ...(truncated ? { truncated } : {}) };
}

/** The files `bin`, `main` (or npm's default `index.js`) and `exports` name, that exist. */
function entries(dir: string, manifest: ScanManifest): string[] {
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  const named = [...bins, ...exportTargets(manifest.exports).map(([, file]) => file)];
  const files = named.map((f) => fileAt(dir, clean(f))).filter((f): f is string => f !== undefined && scannable(f));
  const main = commonjsFile(dir, clean(manifest.main ?? 'index.js'));
  return [...new Set([...files, ...(main && scannable(main) ? [main] : [])])];
}

type Target =
  { file: string; packageName?: undefined; specifier?: undefined } | { file?: undefined; packageName: string; specifier: string };

/** Where a specifier leads: a file of the package to follow, a package, or nowhere (a builtin, a URL, outside). */
function resolveSpecifier(dir: string, from: string, spec: string, manifest: ScanManifest): Target[] {
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const rel = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec.split(/[?#]/)[0]!));
    if (spec.startsWith('/') || rel.startsWith('..') || rel.split('/').includes('node_modules')) return [];
    const file = commonjsFile(dir, rel);
    return file && scannable(file) ? [{ file }] : [];
  }
  if (spec.startsWith('#')) {
    return subpathTargets(spec, manifest.imports).flatMap((t) => (t.startsWith('./') ? resolveSpecifier(dir, '', t, manifest) : bare(t)));
  }
  return bare(spec);
}

function bare(spec: string): Target[] {
  if (spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]!)) return [];
  // A URL (data:, file:, https:) is not a package.
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) return [];
  const parts = spec.split('/');
  const packageName = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return packageName ? [{ packageName, specifier: spec }] : [];
}

/** Every target `imports` maps `#x` to, across its conditions (`#x/*` patterns included). */
export function subpathTargets(spec: string, imports: Record<string, unknown> | undefined): string[] {
  if (!imports) return [];
  let value: unknown = imports[spec];
  let star: string | undefined;
  if (value === undefined) {
    const key = Object.keys(imports)
      .filter((k) => k.includes('*') && spec.startsWith(k.split('*')[0]!) && spec.endsWith(k.split('*')[1] ?? ''))
      .sort((a, b) => b.length - a.length)[0];
    if (key === undefined) return [];
    const [prefix, suffix = ''] = key.split('*');
    star = spec.slice(prefix!.length, spec.length - suffix.length);
    value = imports[key];
  }
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') out.push(star === undefined ? v : v.replaceAll('*', star));
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  collect(value);
  return [...new Set(out)];
}

/** ES module syntax first for `.mjs` and a `"type": "module"` package's `.js`; CommonJS first otherwise. */
function moduleFirst(file: string, manifest: ScanManifest): boolean {
  if (file.endsWith('.mjs')) return true;
  if (file.endsWith('.cjs')) return false;
  return manifest.type === 'module';
}

/** The import edges of one file's source; throws when it parses neither as a module nor as a script. */
export function edgesIn(source: string, asModule: boolean): Edge[] {
  const attempt = (sourceType: 'module' | 'script') =>
    parse(source, {
      ecmaVersion: 'latest',
      sourceType,
      allowHashBang: true,
      allowReturnOutsideFunction: sourceType === 'script',
      allowAwaitOutsideFunction: true,
      locations: true,
    });
  let program: Node;
  try {
    program = attempt(asModule ? 'module' : 'script');
  } catch (first) {
    try {
      program = attempt(asModule ? 'script' : 'module');
    } catch {
      throw first;
    }
  }
  return collectEdges(program);
}

type AnyNode = Node & Record<string, unknown>;

/**
 * The names a call of which is a require: `require`, the shim esbuild and Bun put in an ES-module bundle for the
 * CommonJS code inside (`__require("x")`), and whatever this file binds to `createRequire(…)`.
 */
const REQUIRE_NAMES = ['require', '__require'];

/** Walks the tree without recursion (a minified bundle nests deeply), noting whether each node sits in a `try` block. */
function collectEdges(program: Node): Edge[] {
  const edges: Edge[] = [];
  const requireNames = new Set(REQUIRE_NAMES);
  // Calls of another name with a string argument: a require if the file binds that name to createRequire(…).
  const maybe: (Edge & { callee: string })[] = [];
  const stack: [AnyNode, boolean][] = [[program as AnyNode, false]];
  while (stack.length > 0) {
    const [node, inTry] = stack.pop()!;
    const line = node.loc?.start.line ?? 0;
    const at = node.start;
    const literal = (n: unknown) => stringValue(n as AnyNode | undefined);
    switch (node.type) {
      case 'ImportDeclaration': {
        const spec = literal(node.source);
        if (spec !== undefined) edges.push({ spec, line, at, kind: 'import' });
        break;
      }
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration': {
        const spec = literal(node.source);
        if (spec !== undefined) edges.push({ spec, line, at, kind: 'export-from' });
        break;
      }
      case 'ImportExpression': {
        const spec = literal(node.source);
        if (spec !== undefined) edges.push({ spec, line, at, kind: 'import()' });
        break;
      }
      case 'CallExpression': {
        const callee = node.callee as AnyNode;
        const spec = literal((node.arguments as AnyNode[])[0]);
        if (spec === undefined) break;
        if (callee.type === 'Identifier') {
          const edge: Edge = { spec, line, at, kind: inTry ? 'guarded require' : 'require' };
          if (requireNames.has(callee.name as string)) edges.push(edge);
          else maybe.push({ ...edge, callee: callee.name as string });
        } else if (
          callee.type === 'MemberExpression' &&
          (callee.object as AnyNode).type === 'Identifier' &&
          requireNames.has((callee.object as AnyNode).name as string) &&
          (callee.property as AnyNode).type === 'Identifier' &&
          (callee.property as AnyNode).name === 'resolve'
        )
          edges.push({ spec, line, at, kind: 'require.resolve' });
        break;
      }
      case 'VariableDeclarator':
      case 'AssignmentExpression': {
        // `const req = createRequire(import.meta.url)`, `module.createRequire(…)` alike.
        const target = (node.id ?? node.left) as AnyNode | undefined;
        const init = (node.init ?? node.right) as AnyNode | undefined;
        if (target?.type === 'Identifier' && init?.type === 'CallExpression' && calleeName(init.callee as AnyNode) === 'createRequire')
          requireNames.add(target.name as string);
        break;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || !value || typeof value !== 'object') continue;
      const childTry = inTry || (node.type === 'TryStatement' && key === 'block');
      for (const child of Array.isArray(value) ? value : [value])
        if (child && typeof (child as AnyNode).type === 'string') stack.push([child as AnyNode, childTry]);
    }
  }
  for (const { callee, ...edge } of maybe) if (requireNames.has(callee)) edges.push(edge);
  return edges.sort((a, b) => a.at - b.at);
}

/** `f` of `f(…)` and of `x.f(…)`. */
function calleeName(callee: AnyNode): string | undefined {
  if (callee.type === 'Identifier') return callee.name as string;
  if (callee.type === 'MemberExpression' && (callee.property as AnyNode).type === 'Identifier')
    return (callee.property as AnyNode).name as string;
  return undefined;
}

/** A string literal, or a template literal without expressions. */
function stringValue(node: AnyNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0)
    return ((node.quasis as AnyNode[])[0]?.value as { cooked?: string } | undefined)?.cooked ?? undefined;
  return undefined;
}

/** A file as CommonJS finds it: as is, with an extension, or a directory's index. */
function commonjsFile(dir: string, rel: string): string | undefined {
  for (const suffix of ['', '.js', '.mjs', '.cjs', '.json', '/index.js', '/index.mjs', '/index.cjs']) {
    const found = fileAt(dir, rel + suffix);
    if (found) return found;
  }
  return undefined;
}

function fileAt(dir: string, rel: string): string | undefined {
  try {
    return statSync(path.join(dir, rel)).isFile() ? path.posix.normalize(rel) : undefined;
  } catch {
    return undefined;
  }
}

/** JavaScript by its extension, or a bin without one (`#!/usr/bin/env node`). */
function scannable(file: string): boolean {
  return JS.test(file) || !path.posix.basename(file).includes('.');
}

function clean(file: string): string {
  return path.posix.normalize(file.replace(/\\/g, '/')).replace(/^\.\//, '');
}
