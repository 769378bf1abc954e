// A server that dies because Node cannot find a package gets its cause named: which import, which file, and
// whether it is the package's own undeclared import, one inside a dependency, or a declared peer not installed.
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { withDetails } from '../../contract/fields.js';
import type { MissingImport, PhaseResult, SubCheckResult } from '../../results/types.js';

export type { MissingImport };
export type MissingCase = MissingImport['case'];

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

/** Who imports it and whether that package declares it, read from the cell (the importer's own package.json). */
export async function classifyMissing(stderr: string, undertest: string): Promise<MissingImport | undefined> {
  const parsed = parseMissing(stderr);
  if (!parsed) return undefined;
  const pkg = packageName(parsed.specifier);
  const at = parsed.from.lastIndexOf('/node_modules/');
  if (at < 0) return { package: pkg, case: 'own-undeclared' };
  const rest = parsed.from.slice(at + '/node_modules/'.length).split('/');
  const name = rest[0]!.startsWith('@') ? rest.slice(0, 2).join('/') : rest[0]!;
  const dir = parsed.from.slice(0, at + '/node_modules/'.length) + name;
  const fileParts = rest.slice(name.split('/').length);
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
      return `cannot find ${m.package}, imported by ${file}, which does not declare it: an undeclared import inside the dependency ${who}; the fix is an upgrade of ${m.importer!.name} to a version that declares it, or an override (pnpm's packageExtensions)`;
    case 'declared-not-installed':
      return `cannot find ${m.package}, imported by ${file}, which declares it in ${m.declaredIn}: ${m.declaredIn === 'peerDependencies' ? 'a peer the package manager did not install' : 'the package manager did not install it'}; no package is blamed`;
  }
}

/**
 * A failed stdio or http phase whose server could not find a package: the cause joins its message and
 * `details.missingImport` records it. `checks`: the environment's, whose static finding names the own file(s).
 */
export async function explainMissing(result: PhaseResult, undertest: string, checks: readonly SubCheckResult[] = []): Promise<PhaseResult> {
  if (result.verdict !== 'failed' || (result.phase !== 'stdio' && result.phase !== 'http') || !result.stderrTail) return result;
  const missing = await classifyMissing(result.stderrTail, undertest);
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
