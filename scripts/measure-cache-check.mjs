// What the check of a cache entry before use costs (docs/performance.md, "Cache checks before use"): records the
// entry's manifest once (as a store does), then times the fast check five times and the deep one three times,
// wall and CPU. Run on a copy of an entry (it writes .mcp-matrix-files.json into it), after npm run build:
//   node scripts/measure-cache-check.mjs <entry dir> [--keep-manifest]
import { checkManifest, readManifest, writeManifest } from '../dist/cache/manifest.js';

const [dir, flag] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
if (!dir) {
  process.stderr.write('usage: node scripts/measure-cache-check.mjs <entry dir> [--keep-manifest]\n');
  process.exit(2);
}
async function time(label, task) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const result = await task();
  const used = process.cpuUsage(cpu);
  say(
    `${label}: wall ${(performance.now() - wall).toFixed(0)} ms, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms ${JSON.stringify(result)}`,
  );
}
if (flag === '--keep-manifest' && (await readManifest(dir))) say('record: kept the manifest there');
else
  await time('record', async () => {
    const m = await writeManifest(dir, ['.mcp-matrix-client.json', '.mcp-matrix-runtime.json']);
    return { files: Object.keys(m.files).length, bytes: m.bytes };
  });
for (let i = 0; i < 5; i++) await time('fast', () => checkManifest(dir));
for (let i = 0; i < 3; i++) await time('deep', () => checkManifest(dir, { deep: true }));
