// `prettier --check` over the repository's files, each file prettier passed before with the same content, prettier and
// config skipped: a record by relative path (node_modules/.cache/checks/prettier.json) that .ci/run keeps between clean
// clones (check-caches.mjs), which prettier's own --cache cannot (its entries hash the file's absolute path).
// The files: what git would commit (ignored ones left out); prettier leaves out its own ignores and unknown types.
// usage: node scripts/prettier-check.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const record = path.join(root, 'node_modules', '.cache', 'checks', 'prettier.json');
const require = createRequire(import.meta.url);
const prettierBin = require.resolve('prettier/bin/prettier.cjs');

const sha = (data) => createHash('sha256').update(data).digest('hex');
const read = (file) => {
  try {
    return readFileSync(path.join(root, file));
  } catch {
    return '';
  }
};

const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && existsSync(path.join(root, f)));

// What can change a file's verdict besides its content: prettier's release and every config it may read, at any depth
// (package.json's "prettier" key, a .prettierrc*, prettier.config.*, .editorconfig, the ignore files).
const CONFIG_FILE = /(^|\/)(package\.json|\.prettierrc[^/]*|prettier\.config\.[^/]+|\.editorconfig|\.prettierignore|\.gitignore)$/;
const config = sha(
  [require('prettier/package.json').version, process.version]
    .concat(
      files
        .filter((f) => CONFIG_FILE.test(f))
        .sort()
        .map((f) => `${f}\0${f.endsWith('package.json') ? JSON.stringify(JSON.parse(read(f) || '{}').prettier) : sha(read(f))}`),
    )
    .join('\0'),
);
let passed = {};
try {
  const kept = JSON.parse(readFileSync(record, 'utf8'));
  if (kept.config === config) passed = kept.passed;
} catch {
  // No record: every file is checked.
}
const hashes = new Map(files.map((f) => [f, sha(read(f))]));
const todo = files.filter((f) => passed[f] !== hashes.get(f));
let status = 0;
if (todo.length > 0) {
  // Explicit files: prettier still leaves out what .prettierignore names, and --ignore-unknown the types it has no parser for.
  status =
    spawnSync(process.execPath, [prettierBin, '--check', '--ignore-unknown', '--', ...todo], { cwd: root, stdio: 'inherit' }).status ?? 1;
} else process.stdout.write(`All ${files.length} files passed prettier before with the same content.\n`);
// On a failure prettier has named the files; only a clean pass is recorded, so they are all checked again next time.
if (status === 0) {
  mkdirSync(path.dirname(record), { recursive: true });
  const partial = `${record}.${process.pid}`;
  writeFileSync(partial, JSON.stringify({ config, passed: Object.fromEntries(hashes) }));
  renameSync(partial, record);
}
process.exit(status);
