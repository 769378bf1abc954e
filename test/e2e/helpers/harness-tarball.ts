// This repository packed as a user gets it (`npm pack`, the build `npm test` made, prepare not run again): one
// tarball per `vitest run` (test/helpers/run-cache.ts), shared by every file that installs the harness (the quick
// start, the publish check, the typed API). The same tree packs to the same tarball, so one pack stands for each.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { shared } from '../../helpers/run-cache.js';
import { ROOT } from './cli.js';

export interface HarnessTarball {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** The paths npm put in it. */
  files: string[];
}

function pack(dest: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', dest],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`npm pack: ${String(stderr) || error.message}`)) : resolve(String(stdout))),
    );
  });
}

async function packInto(dir: string): Promise<void> {
  const out = await pack(dir);
  const report = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const info: HarnessTarball = { tarball: path.join(dir, report[0]!.filename), files: report[0]!.files.map((f) => f.path) };
  await writeFile(path.join(dir, 'pack.json'), JSON.stringify(info));
}

/** The run's harness tarball; outside a `vitest run` with the global setup, packed into `fallbackDir`. */
export async function harnessTarball(fallbackDir: string): Promise<HarnessTarball> {
  const dir = (await shared('harness-tarball', packInto)) ?? (await packInto(fallbackDir), fallbackDir);
  return JSON.parse(await readFile(path.join(dir, 'pack.json'), 'utf8')) as HarnessTarball;
}
