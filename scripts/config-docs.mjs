// Writes docs/config.md from the config schema (src/config/docs.ts); `--check` exits 1 when the file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const root = fileURLToPath(new URL('..', import.meta.url));
const jiti = createJiti(import.meta.url, { fsCache: false });
const { renderConfigDocs, referenceGaps, CONFIG_DOC } = await jiti.import(`${root}src/config/docs.ts`);
const gaps = referenceGaps();
if (gaps.undocumented.length || gaps.unknown.length) {
  for (const p of gaps.undocumented) process.stderr.write(`config key ${p} has no entry in src/config/reference.ts\n`);
  for (const p of gaps.unknown) process.stderr.write(`src/config/reference.ts describes ${p}, which the schema does not have\n`);
  process.exit(1);
}
const file = `${root}${CONFIG_DOC}`;
const text = renderConfigDocs();
if (process.argv.includes('--check')) {
  const current = await readFile(file, 'utf8').catch(() => '');
  if (current !== text) {
    process.stderr.write(`${CONFIG_DOC} is out of date with the config schema: run npm run docs:config\n`);
    process.exit(1);
  }
} else {
  await writeFile(file, text);
  process.stdout.write(`wrote ${CONFIG_DOC}\n`);
}
