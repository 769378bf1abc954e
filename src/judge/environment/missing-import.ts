// A server that dies because Node cannot find a package gets its cause named: which import, which file, and
// whether it is the package's own undeclared import, one inside a dependency, or a declared peer not installed.
// Yarn PnP's own errors are read too (`x tried to access y`), and so is a resolution PnP's hooks never saw.
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { withDetails } from '../../contract/fields.js';
import type { MissingImport, PhaseResult, SubCheckResult } from '../../results/types.js';
import type { PnpLayout } from './pnp-environment.js';

export type { MissingImport };
export type MissingCase = MissingImport['case'];
/** A PnP cell's packages (pnp-layout.ts): the version of one whose reference names none (`file:`, `patch:`, git). */
export type PnpPackages = PnpLayout['all'];

const ESM = /Cannot find package '([^']+)' imported from (\S+)/;
const CJS = /Cannot find module '([^'./][^']*)'[^\n]*\n\s*Require stack:\s*\n\s*- (\S+)/;

/** The missing bare import and its importer's path, from a server's stderr; undefined when it shows none. */
export function parseMissing(stderr: string): { specifier: string; from: string; clipped: boolean } | undefined {
  const m = ESM.exec(stderr) ?? CJS.exec(stderr);
  if (!m || m[1]!.startsWith('.') || m[1]!.startsWith('/') || m[1]!.startsWith('node:')) return undefined;
  // The stderr tail cuts a long line: the file may be cut short, the package before it rarely.
  return { specifier: m[1]!, from: m[2]!.replace(/…$/, ''), clipped: m[2]!.endsWith('…') };
}

const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

/** PnP's refusal: `<issuer> tried to access <pkg>[ (a peer dependency)], …` then `Required by: <name>@<ref> (via <path>)`. */
const PNP = /(\S+) tried to access (\S+?)( \(a peer dependency\))?[,;]? (?:but|this)[^\n]*/;
const PNP_BY = /Required by: ((?:@[^@\s/]+\/)?[^@\s]+)@(\S+)(?: \(via (\S+?)\/?\))?/;

/** A PnP refusal read from a server's stderr. */
export function parsePnp(
  stderr: string,
): { specifier: string; issuer: string; peer: boolean; reference?: string; from?: string } | undefined {
  const m = PNP.exec(stderr);
  if (!m) return undefined;
  const by = PNP_BY.exec(stderr.slice(m.index));
  const from = by?.[3]?.endsWith('…') ? undefined : by?.[3];
  return {
    specifier: m[2]!,
    issuer: m[1] === 'application' ? '' : m[1]!,
    peer: m[3] !== undefined,
    ...(by && by[1] === m[1] ? { reference: by[2]! } : {}),
    ...(from ? { from } : {}),
  };
}

/**
 * The version a PnP reference names (`npm:1.2.3`, `virtual:…#npm:1.2.3`), else the manifest above `from` (unplugged),
 * else the cell's layout (a package in a zip, read through PnP's own fs by pnp-layout.ts).
 */
async function pnpVersion(reference: string | undefined, from: string | undefined, name: string, packages: PnpPackages): Promise<string> {
  const npm = reference && /(?:^|#)npm:(?:.*@)?([^@#]+)$/.exec(reference)?.[1];
  if (npm) return npm;
  const root = from?.lastIndexOf(`/node_modules/${name}/`) ?? -1;
  if (!from || root < 0) return layoutVersion(packages, name, from);
  const manifest = await readFile(path.join(from.slice(0, root), 'node_modules', name, 'package.json'), 'utf8')
    .then((t) => JSON.parse(t) as { version?: unknown })
    .catch(() => undefined);
  return typeof manifest?.version === 'string' ? manifest.version : layoutVersion(packages, name, from);
}

/** The layout's package `name` whose location holds `from`, else its only copy; '?' when neither says. */
function layoutVersion(packages: PnpPackages, name: string, from: string | undefined): string {
  const named = packages.filter((p) => p.name === name);
  const holding = from ? named.find((p) => from.startsWith(p.location.replace(/\/*$/, '/'))) : undefined;
  return (holding ?? (named.length === 1 ? named[0] : undefined))?.version ?? '?';
}

/** The file of `from` inside the package `name` (`dist/index.js`), if `from` is a file in it. */
function fileInPackage(from: string | undefined, name: string): string | undefined {
  const at = from?.lastIndexOf(`/node_modules/${name}/`);
  if (!from || at === undefined || at < 0) return undefined;
  const file = from.slice(at + `/node_modules/${name}/`.length);
  return file && !file.endsWith('/') ? file : undefined;
}

async function classifyPnp(stderr: string, undertest: string, packages: PnpPackages): Promise<MissingImport | undefined> {
  const pnp = parsePnp(stderr);
  if (!pnp || !pnp.issuer) return undefined;
  const pkg = packageName(pnp.specifier);
  const file = fileInPackage(pnp.from, pnp.issuer);
  const importer = {
    name: pnp.issuer,
    version: await pnpVersion(pnp.reference, pnp.from, pnp.issuer, packages),
    ...(file ? { file } : {}),
  };
  if (pnp.peer) return { package: pkg, importer, declaredIn: 'peerDependencies', case: 'peer-not-provided' };
  return { package: pkg, importer, case: pnp.issuer === undertest ? 'own-undeclared' : 'dependency-undeclared' };
}

/**
 * Who imports it and whether that package declares it, read from the cell (the importer's own package.json);
 * `packages`: a PnP cell's layout, for the version of a package its error names only by a `file:` or `patch:` reference.
 */
export async function classifyMissing(stderr: string, undertest: string, packages: PnpPackages = []): Promise<MissingImport | undefined> {
  const pnp = await classifyPnp(stderr, undertest, packages);
  if (pnp) return pnp;
  const parsed = parseMissing(stderr);
  if (!parsed) return undefined;
  // Node's own resolver failing inside Yarn's cache: PnP's hooks never saw this resolution.
  if (/\.zip\/node_modules\/|\/\.yarn\/(?:unplugged|__virtual__)\//.test(parsed.from)) {
    const at = parsed.from.lastIndexOf('/node_modules/');
    const rest = parsed.from.slice(at + '/node_modules/'.length).split('/');
    const name = rest[0]!.startsWith('@') ? rest.slice(0, 2).join('/') : rest[0]!;
    // Cut inside the importer's name: another package's name, perhaps; none is named.
    if (parsed.clipped && rest.length <= name.split('/').length) return undefined;
    const file = parsed.clipped ? undefined : fileInPackage(parsed.from, name);
    return {
      package: packageName(parsed.specifier),
      importer: { name, version: await pnpVersion(undefined, parsed.from, name, packages), ...(file ? { file } : {}) },
      case: 'pnp-escaped',
    };
  }
  const pkg = packageName(parsed.specifier);
  const at = parsed.from.lastIndexOf('/node_modules/');
  // A path cut before any node_modules/ may be a package's file all the same: no cause is claimed.
  if (at < 0 && parsed.clipped) return undefined;
  // A file in no installed package (a script the server wrote, a user's config file): no manifest to read, no one to blame.
  if (at < 0) return { package: pkg, file: parsed.from, case: 'outside-packages' };
  const rest = parsed.from.slice(at + '/node_modules/'.length).split('/');
  const name = rest[0]!.startsWith('@') ? rest.slice(0, 2).join('/') : rest[0]!;
  const dir = parsed.from.slice(0, at + '/node_modules/'.length) + name;
  const fileParts = rest.slice(name.split('/').length);
  // Cut inside the importer's name: another package's name, perhaps; none is blamed.
  if (parsed.clipped && fileParts.length === 0) return undefined;
  const manifest = await readFile(path.join(await realpath(dir).catch(() => dir), 'package.json'), 'utf8')
    .then((t) => JSON.parse(t) as Record<string, Record<string, string> | string | undefined>)
    .catch(() => undefined);
  const fields = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;
  const declaredIn = fields.find((f) => typeof manifest?.[f] === 'object' && pkg in (manifest[f] as Record<string, string>));
  const importer = {
    name,
    version: typeof manifest?.version === 'string' ? manifest.version : '?',
    ...(fileParts.length && !parsed.clipped ? { file: fileParts.join('/') } : {}),
  };
  return {
    package: pkg,
    importer,
    ...(declaredIn ? { declaredIn } : {}),
    case: declaredIn ? 'declared-not-installed' : name === undertest ? 'own-undeclared' : 'dependency-undeclared',
  };
}

/** The sentence that names the cause; `sites`: where the static check found the package's own import of it. */
export function describeMissing(m: MissingImport, sites: readonly string[] = []): string {
  const who = m.importer ? `${m.importer.name}@${m.importer.version}` : 'the package';
  const file = m.importer?.file ? `${m.importer.file} of ${who}` : who;
  const where = sites.length ? ` (the undeclared-imports check: ${sites.join(', ')})` : '';
  switch (m.case) {
    case 'own-undeclared':
      return `cannot find ${m.package}, imported by ${file}${where}, which does not declare it in dependencies, peerDependencies or optionalDependencies: the package's own undeclared import, which npm's flat node_modules hides; declare it`;
    case 'dependency-undeclared':
      return `cannot find ${m.package}, imported by ${file}, which does not declare it: an undeclared import inside the dependency ${who}, not the package's own; the fix is an upgrade of ${m.importer!.name} to a version that declares it, or an override (packageExtensions, in pnpm's or Yarn's settings)`;
    case 'peer-not-provided':
      return `cannot find ${m.package}, which ${file} declares as a peer dependency: no package above it provides it and Yarn installs no peer by itself (PnP: "tried to access ${m.package} (a peer dependency)"); no package is blamed: the user installs the peer`;
    case 'pnp-escaped':
      return `cannot find ${m.package}, imported by ${file}: Node's own resolver ran on a file in Yarn's cache, so PnP's hooks never saw this import (a known PnP limitation: a CommonJS require() of an ES module is not routed through PnP's ES-module loader); no package is blamed`;
    case 'outside-packages':
      return `cannot find ${m.package}, imported by ${m.file ?? 'a file'}, a file outside node_modules that belongs to no installed package: no manifest says whether it should be declared; no package is blamed`;
    case 'declared-not-installed':
      return `cannot find ${m.package}, imported by ${file}, which declares it in ${m.declaredIn}: ${m.declaredIn === 'peerDependencies' ? 'a peer the package manager did not install' : 'the package manager did not install it'}; no package is blamed`;
  }
}

/**
 * A failed stdio or http phase whose server could not find a package: the cause joins its message and
 * `details.missingImport` records it. `checks`: the environment's, whose static finding names the own file(s).
 */
export async function explainMissing(
  result: PhaseResult,
  undertest: string,
  checks: readonly SubCheckResult[] = [],
  packages: PnpPackages = [],
): Promise<PhaseResult> {
  if (result.verdict !== 'failed' || (result.phase !== 'stdio' && result.phase !== 'http') || !result.stderrTail) return result;
  const missing = await classifyMissing(result.stderrTail, undertest, packages);
  if (!missing) return result;
  const undeclared = checks.flatMap(
    (c) => (c.evidence?.undeclared as { package: string; sites: { file: string; line: number }[] }[]) ?? [],
  );
  const sites =
    missing.case === 'own-undeclared'
      ? (undeclared.find((u) => u.package === missing.package)?.sites ?? []).map((s) => `${s.file}:${s.line}`)
      : [];
  return withDetails(
    { ...result, message: `${result.message ?? 'failed'}: ${describeMissing(missing, sites)}` },
    { missingImport: missing },
  );
}
