// Per test file: wall time and CPU seconds (this worker and every child it waited for: the CLI runs, npm,
// servers), appended as one JSON line to $MM_TEST_TIMINGS. Wall time on a shared machine says little;
// CPU seconds say where the suite's work goes. Loaded only when MM_TEST_TIMINGS is set (vitest.config.ts).
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

const TICK = 100; // USER_HZ on Linux

/** utime, stime, cutime, cstime of this process, in seconds. */
function cpu(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14–17 of stat(5); f[0] is field 3.
  const n = (i: number) => Number(f[i - 3]) / TICK;
  return { self: n(14) + n(15), children: n(16) + n(17) };
}

let start = { wall: 0, self: 0, children: 0 };
let file = '';

// vitest's hook context must be destructured (it parses the pattern); the file is the second argument.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, suite) => {
  file = path.relative(process.cwd(), suite.file.filepath);
  start = { wall: performance.now(), ...cpu() };
});

afterAll(() => {
  const end = cpu();
  const line = {
    file,
    wallS: +((performance.now() - start.wall) / 1000).toFixed(1),
    selfCpuS: +(end.self - start.self).toFixed(1),
    childCpuS: +(end.children - start.children).toFixed(1),
  };
  appendFileSync(process.env.MM_TEST_TIMINGS!, `${JSON.stringify(line)}\n`);
});
