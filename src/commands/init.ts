// `mcp-matrix init`: in an MCP server package, write a matrix.config.ts derived from its package.json
// (bin, declared SDK ranges → floor and latest cells per admitted major) and a GitHub workflow that
// runs it as the required release job (plan → pack once → one job per cell → merge).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import type { Logger } from '../logger.js';
import { DEFAULT_MAJORS } from '../config/resolve.js';
import { manifestInfo, type RawManifest } from '../plan/package-info.js';
import { errorMessage, fail, ok, type Failure, type Result } from '../util/result.js';
import { renderConfig, renderWorkflow } from './init-templates.js';

export const CONFIG_FILE = 'matrix.config.ts';
export const WORKFLOW_FILE = path.join('.github', 'workflows', 'mcp-matrix.yml');

export interface InitOptions {
  cwd: string;
  force: boolean;
}

export interface InitPlan {
  name: string;
  bin: string;
  /** Other bins the package declares (named in a comment). */
  otherBins: string[];
  /** Declared range per SDK package the harness pins (`@modelcontextprotocol/sdk`, `/server`). */
  ranges: Record<string, string>;
  /** SDK majors the declared ranges admit, ascending. */
  majors: number[];
}

/** The SDK packages whose declared range decides the cells: the primary package of each major. */
const PRIMARIES: { major: number; name: string }[] = Object.entries(DEFAULT_MAJORS)
  .map(([major, recipe]) => ({ major: Number(major), name: recipe.pinned[0]! }))
  .sort((a, b) => a.major - b.major);

export async function initCommand(options: InitOptions, log: Logger): Promise<number | Failure> {
  const manifestFile = path.join(options.cwd, 'package.json');
  let raw: RawManifest;
  try {
    raw = JSON.parse(await readFile(manifestFile, 'utf8')) as RawManifest;
  } catch (error) {
    return {
      kind: 'usage',
      message: `cannot read ${manifestFile}: ${errorMessage(error)}. Run mcp-matrix init in the directory of the MCP server package (where its package.json is).`,
    };
  }
  const derived = deriveInit(raw);
  if (!derived.ok) return derived.error;

  const targets = [CONFIG_FILE, WORKFLOW_FILE].map((f) => path.join(options.cwd, f));
  const existing = targets.filter((f) => existsSync(f));
  if (existing.length > 0 && !options.force) {
    return {
      kind: 'usage',
      message: `refusing to overwrite ${existing.map((f) => path.relative(options.cwd, f)).join(' and ')}: nothing was written. Pass --force to replace ${existing.length > 1 ? 'them' : 'it'}.`,
    };
  }
  const [configFile, workflowFile] = targets as [string, string];
  await writeFile(configFile, renderConfig(derived.value));
  await mkdir(path.dirname(workflowFile), { recursive: true });
  await writeFile(workflowFile, renderWorkflow());

  const plan = derived.value;
  log.info(
    `wrote ${CONFIG_FILE} (${plan.majors.length * 2} cells: ${plan.majors.map((m) => `floor@${m}, latest@${m}`).join(', ')}; bin ${plan.bin})`,
  );
  log.info(`wrote ${WORKFLOW_FILE} (plan → pack once → one job per cell → merge)`);
  log.info('next:');
  log.info('  npm install --save-dev mcp-matrix      # the config imports defineConfig from it; the workflow runs it');
  log.info(`  edit ${CONFIG_FILE}: fill in stdio.expect and stdio.steps (marked TODO), check http/bind`);
  log.info('  npx mcp-matrix plan                    # what would run, resolved against the registry');
  log.info(`  npx mcp-matrix run --cell latest-${plan.majors.at(-1)}        # one cell on this machine`);
  return 0;
}

/** Pure: package.json → what init writes, or a message saying what the package must declare. */
export function deriveInit(raw: RawManifest): Result<InitPlan> {
  const info = manifestInfo(raw);
  const name = info.name || '(unnamed package)';
  const bins = Object.keys(info.bins);
  if (bins.length === 0) {
    return fail(
      'usage',
      `${name} declares no "bin" in package.json: mcp-matrix starts the server through its bin, as an MCP client does. Add one, e.g. "bin": { "my-mcp-server": "./dist/cli.js" }, then run init again.`,
    );
  }
  const unscoped = info.name.replace(/^@[^/]+\//, '');
  const bin = bins.includes(unscoped) ? unscoped : bins[0]!;

  const ranges: Record<string, string> = {};
  const majors: number[] = [];
  const problems: string[] = [];
  for (const { major, name: sdk } of PRIMARIES) {
    const range = info.ranges[sdk];
    if (range === undefined) continue;
    ranges[sdk] = range;
    if (semver.validRange(range) === null) {
      problems.push(`the range "${range}" on ${sdk} is not a semver range (mcp-matrix needs one to find the floor, e.g. "^${major}.0.0")`);
      continue;
    }
    if (semver.intersects(range, `>=${major}.0.0 <${major + 1}.0.0-0`)) majors.push(major);
    else problems.push(`the range "${range}" on ${sdk} admits no ${major}.x version (${sdk} is the package of SDK major ${major})`);
  }
  if (problems.length > 0) return fail('usage', `cannot derive the cells from ${name}'s package.json:`, problems);
  if (majors.length === 0) {
    return fail(
      'usage',
      `${name} declares no range on ${PRIMARIES.map((p) => p.name).join(' or ')} in "dependencies" or "peerDependencies", so there is no SDK version to test. Add the range you support, e.g. "peerDependencies": { "@modelcontextprotocol/sdk": "^1.23.0" } for SDK 1.x and/or { "@modelcontextprotocol/server": "^2.0.0" } for SDK 2.x, then run init again.`,
    );
  }
  return ok({ name: info.name, bin, otherBins: bins.filter((b) => b !== bin), ranges, majors });
}

export { renderConfig, renderWorkflow } from './init-templates.js';
