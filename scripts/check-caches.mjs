// typecheck's and lint's own caches (tsc's build info, eslint's --cache, prettier-check.mjs's record, all by content),
// kept in the test caches between clean clones as a warm CI keeps its installs: .ci/run restores them before the checks,
// saves them after. eslint keys a file by its absolute path, so the clone's root is stored as a placeholder.
// usage: node scripts/check-caches.mjs restore|save
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** Where package.json's typecheck and lint scripts keep them. */
const local = path.join(root, 'node_modules', '.cache', 'checks');
const FILES = ['typecheck.tsbuildinfo', 'driver.tsbuildinfo', 'mutation.tsbuildinfo', 'eslint.json', 'prettier.json'];
/** Stored with the clone's root replaced: the cache that keys files by absolute path. */
const BY_PATH = new Set(['eslint.json']);
const PLACEHOLDER = '@@MCP_MATRIX_ROOT@@/';

// eslint's cache does not see a change to a rule's code (its config hash leaves functions out): the project's own rules,
// the installed plugins (the lockfile) and Node are the key.
function key() {
  const hash = createHash('sha256').update(process.version);
  const lint = path.join(root, 'scripts', 'lint');
  const inputs = [
    'package-lock.json',
    'eslint.config.js',
    ...readdirSync(lint)
      .sort()
      .map((f) => path.join('scripts', 'lint', f)),
  ];
  for (const file of inputs) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/** The root as it appears inside a JSON string, with the separator after it. */
const rootInJson = JSON.stringify(root + '/').slice(1, -1);

function toStored(text, at = rootInJson) {
  return text.split(at).join(PLACEHOLDER);
}

function fromStored(text, at = rootInJson) {
  return text.split(PLACEHOLDER).join(at);
}

function main(command) {
  const cacheRoot = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mcp-matrix-tests', 'checks');
  const store = path.join(cacheRoot, key());
  const [from, to] = command === 'restore' ? [store, local] : [local, store];
  mkdirSync(to, { recursive: true });
  let copied = 0;
  for (const name of FILES) {
    let text;
    try {
      text = readFileSync(path.join(from, name), 'utf8');
    } catch {
      continue;
    }
    const tmp = path.join(to, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, BY_PATH.has(name) ? (command === 'restore' ? fromStored : toStored)(text) : text);
    renameSync(tmp, path.join(to, name));
    copied += 1;
  }
  // One key kept: an older lockfile's caches would never be read again.
  if (command === 'save')
    for (const other of readdirSync(cacheRoot))
      if (path.join(cacheRoot, other) !== store) rmSync(path.join(cacheRoot, other), { recursive: true, force: true });
  process.stdout.write(`check caches: ${copied} of ${FILES.length} ${command === 'restore' ? 'restored from' : 'saved to'} ${store}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const command = process.argv[2];
  if (command !== 'restore' && command !== 'save') {
    process.stderr.write('usage: node scripts/check-caches.mjs restore|save\n');
    process.exit(2);
  }
  try {
    main(command);
  } catch (error) {
    // A cache that cannot be read or written only costs the checks their full time.
    process.stderr.write(`check caches: ${command} skipped: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
