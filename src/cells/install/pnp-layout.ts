// What a Yarn Plug'n'Play cell holds, read through its own `.pnp.cjs` (in a child Node: the harness's process is
// never patched): where each package is, as PnP resolves it, and the `node` options that start a program as
// `yarn run`/`yarn node` do (PnP's require hook and, when Yarn wrote one, its ES-module loader).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from '../../process/exec.js';
import type { PnpLayout } from '../../judge/environment/pnp-environment.js';
import { fail, ok, type Result } from '../../util/result.js';

// The layout's shape is the environment judge's input, declared there so the judge imports nothing from cells.
export type { PnpLayout, PnpPackage } from '../../judge/environment/pnp-environment.js';

// Run under `node -r .pnp.cjs`: pnpapi is PnP's runtime API; `require` of a zip path reads through its fs patch.
const SCRIPT = `
const pnp = require('pnpapi');
const path = require('path');
const [name] = process.argv.slice(1);
const manifest = (loc) => { try { return require(path.join(loc, 'package.json')); } catch { return {}; } };
const versionOf = (ref, loc) => { const m = /(?:^|#)npm:(?:.*@)?([^@#]+)$/.exec(ref); return m ? m[1] : (manifest(loc).version || '?'); };
const info = (n, ref, withManifest) => {
  const loc = pnp.getPackageInformation({ name: n, reference: ref }).packageLocation;
  const out = { name: n, version: versionOf(ref, loc), location: loc };
  if (withManifest) { const m = manifest(loc); out.dependencies = m.dependencies || {}; out.peerDependencies = m.peerDependencies || {}; }
  return out;
};
const depsOf = (locator, withManifest) => {
  const out = {};
  for (const [n, ref] of pnp.getPackageInformation(locator).packageDependencies) {
    if (ref === null) continue;
    const target = Array.isArray(ref) ? { name: ref[0], reference: ref[1] } : { name: n, reference: ref };
    out[n] = info(target.name, target.reference, withManifest);
  }
  return out;
};
const top = depsOf(pnp.topLevel, false);
const own = pnp.getPackageInformation(pnp.topLevel).packageDependencies.get(name);
const deps = own ? depsOf({ name, reference: own }, true) : {};
const all = pnp.getAllLocators().filter((l) => l.reference !== null && l.name !== null && !l.reference.startsWith('workspace:'))
  .map((l) => info(l.name, l.reference, false));
process.stdout.write(JSON.stringify({ top, deps, all }));
`;

/** The cell's PnP layout, read by its own `.pnp.cjs`; fails when Yarn left none or it cannot be read. */
export async function readPnpLayout(cellDir: string, packageName: string): Promise<Result<PnpLayout>> {
  const hook = path.join(cellDir, '.pnp.cjs');
  if (!existsSync(hook)) return fail('infrastructure', `yarn install left no .pnp.cjs in ${cellDir}`);
  const loader = path.join(cellDir, '.pnp.loader.mjs');
  const out = await run(process.execPath, ['--require', hook, '-e', SCRIPT, packageName], { cwd: cellDir, timeoutMs: 60_000 });
  let read: Pick<PnpLayout, 'top' | 'deps' | 'all'>;
  try {
    read = JSON.parse(out.stdout) as typeof read;
  } catch {
    return fail(
      'infrastructure',
      `the cell's .pnp.cjs could not be read: ${(out.stderr || out.stdout).trim().split('\n')[0] ?? `exit ${out.exitCode}`}`,
    );
  }
  const own = read.top[packageName];
  if (!own) return fail('infrastructure', `the cell's .pnp.cjs does not list ${packageName}`);
  const nodeOptions = [
    `--require ${quoted(hook)}`,
    ...(existsSync(loader) ? [`--experimental-loader ${quoted(pathToFileURL(loader).href)}`] : []),
  ].join(' ');
  return ok({ nodeOptions, packageDir: own.location.replace(/\/+$/, ''), ...read });
}

/** A path as NODE_OPTIONS reads it: in double quotes when it holds a space (as Yarn writes it). */
function quoted(value: string): string {
  return /[\s"]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
}
