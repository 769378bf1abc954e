// The only file in reports that touches the disk: mkdir -p, then each report written atomically
// (temporary file + rename), so an interrupted write never leaves a half results.json behind.

import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../results/types.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export interface WriteOptions {
  /** Also write junit.xml (default true). */
  junit?: boolean;
}

export const RESULTS_FILE = 'results.json';
export const MARKDOWN_FILE = 'matrix.md';
export const JUNIT_FILE = 'junit.xml';

/** Writes results.json, matrix.md and (unless `junit: false`) junit.xml into `outDir`; returns their paths. */
export async function writeReports(run: RunResult, outDir: string, options: WriteOptions = {}): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const json = renderJson(run);
  // Render from the stored form, so `report results.json` later gives byte-identical files.
  const stored = JSON.parse(json) as RunResult;
  const files: [string, string][] = [
    [RESULTS_FILE, json],
    [MARKDOWN_FILE, renderMarkdown(stored)],
  ];
  if (options.junit !== false) files.push([JUNIT_FILE, renderJunit(stored)]);
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(outDir, name);
    await writeAtomic(path, content);
    written.push(path);
  }
  return written;
}

async function writeAtomic(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, content, 'utf8');
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
