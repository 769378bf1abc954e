// The environment's undeclared-import checks: every package the package's own files import must be declared
// (dependencies, peerDependencies or optionalDependencies). npm's flat node_modules hides the gap, since a
// dependency brought the package along; a strict install (pnpm without hoisting, Yarn PnP) does not.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkResult, levelOf, type CheckFinding } from '../../contract/checks.js';
import type { CheckLevel, EnvironmentEvidence, PhaseResultOf, SubCheckResult } from '../../results/types.js';
import type { CellLock } from './cell-lock.js';
import { scanImports, type FoundImport, type ImportScan, type ScanManifest } from './import-graph.js';

export const UNDECLARED_CHECKS = ['undeclared-imports', 'undeclared-dynamic-imports'] as const;

export interface DeclaringManifest extends ScanManifest {
  version?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** One undeclared package, with where it is imported and how it reaches npm's tree. */
export interface Undeclared {
  package: string;
  sites: { file: string; line: number; kind: FoundImport['kind']; specifier: string }[];
  /** It is declared, but only in devDependencies (not installed for users). */
  devDependency?: true;
  /** The installed packages that depend on it, which is why npm's flat tree lets the import resolve. */
  via?: string[];
}

const scans = new Map<string, ImportScan>();

/** The scan of the package installed in the cell; cells of one tarball share it (`key`: its sha512). */
export function scanOnce(packageDir: string, manifest: ScanManifest, key: string): ImportScan {
  const known = scans.get(key);
  if (known) return known;
  const scan = scanImports(packageDir, manifest);
  if (scans.size > 32) scans.clear();
  scans.set(key, scan);
  return scan;
}

/** The undeclared packages of a scan: static ones (the start path) and the rest, each package once. */
export function undeclaredOf(scan: ImportScan, manifest: DeclaringManifest): { onPath: Undeclared[]; later: Undeclared[] } {
  const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }));
  const group = (imports: FoundImport[]): Undeclared[] => {
    const byName = new Map<string, Undeclared>();
    for (const i of imports) {
      if (declared.has(i.packageName) || i.packageName === manifest.name) continue;
      const entry = byName.get(i.packageName) ?? {
        package: i.packageName,
        sites: [],
        ...(manifest.devDependencies?.[i.packageName] !== undefined ? { devDependency: true as const } : {}),
      };
      entry.sites.push({ file: i.file, line: i.line, kind: i.kind, specifier: i.specifier });
      byName.set(i.packageName, entry);
    }
    return [...byName.values()];
  };
  const onPath = group(scan.imports.filter((i) => i.static));
  const staticNames = new Set(onPath.map((u) => u.package));
  return { onPath, later: group(scan.imports.filter((i) => !i.static && !staticNames.has(i.packageName))) };
}

/**
 * Who depends on each package in npm's lockfile of the cell: `@modelcontextprotocol/sdk@1.17.0`. None from a lockfile
 * that is not JSON: the finding stands on the package's own files, and environment names the unreadable lockfile.
 */
export function dependents(lock: CellLock, names: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (lock.kind !== 'parsed') return out;
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where) continue;
    const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    for (const wanted of names)
      if (wanted in { ...entry.dependencies, ...entry.peerDependencies })
        out.set(wanted, [...new Set([...(out.get(wanted) ?? []), `${name}@${entry.version ?? '?'}`])]);
  }
  return out;
}

const FIELDS = 'dependencies, peerDependencies or optionalDependencies';

function site(s: Undeclared['sites'][number]): string {
  return `${s.kind} ${JSON.stringify(s.specifier)} in ${s.file}:${s.line}`;
}

/** `zod (import "zod" in dist/index.js:3, and 2 more; only in devDependencies; npm's tree has it through @x/y@1.0.0)`. */
export function describeUndeclared(u: Undeclared): string {
  const more = u.sites.length > 1 ? `, and ${u.sites.length - 1} more` : '';
  const notes = [
    `${site(u.sites[0]!)}${more}`,
    ...(u.devDependency ? ['declared only in devDependencies, which users do not install'] : []),
    ...(u.via?.length ? [`npm's flat tree has it only through ${u.via.slice(0, 3).join(', ')}${u.via.length > 3 ? ', …' : ''}`] : []),
  ];
  return `${u.package} (${notes.join('; ')})`;
}

function finding(found: Undeclared[], scan: ImportScan, what: 'static' | 'dynamic'): CheckFinding {
  const unjudged = [
    ...(scan.unparsed.length
      ? [`${scan.unparsed.length} file(s) could not be parsed: ${scan.unparsed.map((u) => u.file).join(', ')}`]
      : []),
    ...(scan.truncated ? [scan.truncated] : []),
  ];
  const tail = unjudged.length ? ` (not judged: ${unjudged.join('; ')})` : '';
  if (found.length === 0) {
    const where =
      what === 'static' ? 'on the start path (bin, main and exports, through static imports)' : 'by import() or a guarded require';
    return {
      outcome: 'passed',
      message: `every package imported ${where} is declared (${scan.files.length} file(s) parsed)${tail}`,
      short: 'ok',
    };
  }
  const lead =
    what === 'static'
      ? `imports ${found.length} package(s) on its start path that it does not declare in ${FIELDS}`
      : `loads ${found.length} package(s) by import() or a guarded require that it does not declare in ${FIELDS}`;
  const fix = `: a strict install (pnpm without hoisting, Yarn PnP) cannot resolve ${found.length === 1 ? 'it' : 'them'}; declare ${found.length === 1 ? 'it' : 'each'}`;
  return {
    outcome: 'failed',
    message: `${lead}: ${found.map(describeUndeclared).join('; ')}${fix}${tail}`,
    short: `undeclared: ${found.map((u) => u.package).join(', ')}`,
    step: 'undeclared imports',
    evidence: { undeclared: found },
  };
}

export interface ImportCheckInput {
  cellDir: string;
  packageName: string;
  /** The tarball's sha512: the package's files, hence the scan, are the same in every cell. */
  key: string;
  /** Both checks' levels, resolved (config/resolve.ts): nothing here defaults one. */
  levels: Readonly<Record<string, CheckLevel>>;
  /** Where the package is installed, when not `<cell>/node_modules/<name>` (Yarn PnP unplugs it elsewhere). */
  packageDir?: string;
  /** The cell's package-lock.json as cell-lock.ts read it for the environment's check. */
  lock: CellLock;
}

/** The two checks of the package installed in the cell (static imports: `require`; the rest: `warn`, by default). */
export async function judgeImports(input: ImportCheckInput): Promise<SubCheckResult[]> {
  const packageDir = input.packageDir ?? path.join(input.cellDir, 'node_modules', input.packageName);
  const manifest = await readFile(path.join(packageDir, 'package.json'), 'utf8')
    .then((t) => JSON.parse(t) as DeclaringManifest)
    .catch(() => undefined);
  const level = (id: (typeof UNDECLARED_CHECKS)[number]) => levelOf(id, input.levels);
  if (!manifest) {
    const missing: CheckFinding = { outcome: 'not-measured', message: `${input.packageName} has no readable package.json in the cell` };
    return UNDECLARED_CHECKS.map((id) => checkResult(id, level(id), missing));
  }
  const scan = scanOnce(packageDir, manifest, input.key);
  const { onPath, later } = undeclaredOf(scan, manifest);
  const via = dependents(
    input.lock,
    [...onPath, ...later].map((u) => u.package),
  );
  const withVia = (list: Undeclared[]) => list.map((u) => (via.get(u.package) ? { ...u, via: via.get(u.package)! } : u));
  return [
    checkResult('undeclared-imports', level('undeclared-imports'), finding(withVia(onPath), scan, 'static')),
    checkResult('undeclared-dynamic-imports', level('undeclared-dynamic-imports'), finding(withVia(later), scan, 'dynamic')),
  ];
}

/**
 * The environment result with its checks: a failed `require` check fails it, its line joining the other problems
 * (so the later folds, runtime SDK and Node engines, keep it), named `<id>: …`.
 */
export function withImportChecks(
  env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence },
  checks: SubCheckResult[],
): { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence } {
  const failing = checks.filter((c) => c.level === 'require' && c.outcome === 'failed');
  const result: PhaseResultOf<'environment'> = { ...env.result, checks };
  if (failing.length === 0) return { ...env, result };
  const listed = env.result.details?.problems;
  const earlier = env.result.verdict === 'failed' ? (Array.isArray(listed) ? listed.map(String) : [env.result.message ?? 'failed']) : [];
  const problems = [...earlier, ...failing.map((c) => `${c.id}: ${c.message}`)];
  // The package's own files fail it; what the machine kept from being checked (an unreadable lockfile) is still said.
  const unchecked = env.result.verdict === 'not-measured' && env.result.message ? [`not measured: ${env.result.message}`] : [];
  return {
    ...env,
    result: {
      ...result,
      verdict: 'failed',
      message: [...problems, ...unchecked].join('; '),
      step: earlier.length ? (env.result.step ?? 'verify') : (failing[0]!.step ?? 'undeclared imports'),
      details: { ...env.result.details, problems },
    },
  };
}
