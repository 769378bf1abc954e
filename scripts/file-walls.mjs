// test/helpers/file-walls.json from a whole-suite run's MM_TEST_TIMINGS file: each test file's wall seconds, the
// order test/helpers/sequencer.ts starts files in. Usage: node scripts/file-walls.mjs <timings.jsonl>
import { readFileSync, writeFileSync } from 'node:fs';

const [timings] = process.argv.slice(2);
if (!timings) {
  process.stderr.write('usage: node scripts/file-walls.mjs <timings.jsonl>\n');
  process.exit(2);
}
const walls = {};
for (const line of readFileSync(timings, 'utf8').split('\n').filter(Boolean)) {
  const { file, wallS } = JSON.parse(line);
  walls[file] = Math.max(walls[file] ?? 0, Math.round(wallS));
}
const sorted = Object.fromEntries(Object.entries(walls).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(new URL('../test/helpers/file-walls.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
process.stdout.write(`${Object.keys(sorted).length} files\n`);
