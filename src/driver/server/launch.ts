// How a bin is started: as a user's shell would, by its `#!` line (`env -S` splits it). A `node` interpreter
// becomes the variant's Node with the line's flags and the probe; any other runs the bin as is, the probe in
// NODE_OPTIONS. Builtins only: the driver's folder is copied into every cell.

import { closeSync, openSync, readSync } from 'node:fs';
import { basename, extname } from 'node:path';

/** How the bin runs: by the variant's Node with the `#!` line's flags and env assignments, or as is. */
export type Launch =
  | { kind: 'node'; flags: string[]; env: Record<string, string> }
  | {
      kind: 'as-is';
      /** The `#!` line's interpreter as written (`/bin/sh`, `ts-node`), when the bin has one. */
      interpreter?: string;
    };

const NODE_EXTENSIONS = ['.js', '.mjs', '.cjs'];
/** The interpreter names that are Node itself (not `ts-node`, `babel-node`: those run as is). */
const NODE_NAMES = ['node', 'nodejs'];

/** The launch a bin file asks for (its `#!` line, else its extension). */
export function launchOf(bin: string): Launch {
  const line = firstLine(bin);
  if (line?.startsWith('#!')) return launchOfShebang(line);
  return NODE_EXTENSIONS.includes(extname(bin)) ? { kind: 'node', flags: [], env: {} } : { kind: 'as-is' };
}

/** A bin is a Node program the probe is preloaded into (`--import`); else it is run as is. */
export function isNodeScript(bin: string): boolean {
  return launchOf(bin).kind === 'node';
}

/** The launch a `#!` line asks for, read as Linux reads it. */
export function launchOfShebang(line: string): Launch {
  const body = line.slice(2).replace(/\r$/, '').trim();
  const space = body.search(/[ \t]/);
  const interpreter = space < 0 ? body : body.slice(0, space);
  // The kernel passes the rest of the line as one argument, spaces and all.
  const arg = space < 0 ? undefined : body.slice(space).trim() || undefined;
  const asIs: Launch = interpreter ? { kind: 'as-is', interpreter } : { kind: 'as-is' };
  const name = basename(interpreter);
  if (NODE_NAMES.includes(name)) return { kind: 'node', flags: arg === undefined ? [] : [arg], env: {} };
  if (name !== 'env' || arg === undefined) return asIs;
  const split = /^(-S|--split-string=?)(.*)$/s.exec(arg);
  // Without -S, env runs the one argument as a program name ("node --flag" is no program: it fails as it would in a shell).
  if (!split) return NODE_NAMES.includes(arg) ? { kind: 'node', flags: [], env: {} } : { ...asIs, interpreter: arg };
  const words = splitString(split[2]!);
  if (!words) return asIs;
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!); i++) {
    const word = words[i]!;
    env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  const command = words[i];
  // An env option (-i, -u NAME …) or no command: what it does is env's to do, so the bin runs as is.
  if (command === undefined || command.startsWith('-')) return asIs;
  if (!NODE_NAMES.includes(basename(command))) return { ...asIs, interpreter: command };
  return { kind: 'node', flags: words.slice(i + 1), env };
}

/**
 * `env -S`'s word splitting: blanks separate words, '…' is literal, "…" and bare text take backslash
 * escapes (`\_` a space), `#` at a word's start ends the line. Null for what it would expand (`${NAME}`),
 * so that env itself does it (the bin then runs as is).
 */
export function splitString(text: string): string[] | null {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (c === '$') return null;
    if (c === '\\') {
      const next = text[++i];
      if (next === undefined) return null;
      if (next === 'c') break;
      word = (word ?? '') + ({ _: ' ', t: '\t', n: '\n', f: '\f', v: '\v', r: '\r' }[next] ?? next);
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
      continue;
    }
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else word = (word ?? '') + c;
  }
  if (quote) return null;
  if (word !== undefined) words.push(word);
  return words;
}

function firstLine(file: string): string | undefined {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(512);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8').split('\n')[0];
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
