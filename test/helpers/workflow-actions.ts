// The local workflow runner's stand-ins for the package-manager actions, written from their sources: setup-node
// v6.5.0 (src/main.ts, cache-restore.ts, cache-utils.ts, util.ts), pnpm/action-setup v4.0.0 (src/install-pnpm/run.ts),
// @actions/glob's hashFiles, and the runner image's corepack and global Yarn 1. Real pnpm and Yarn run (`tools`).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export interface Annotation {
  level: string;
  title: string;
  message: string;
}

/** What an action did: the step's outcome, its log, and what it added to the job (GITHUB_PATH, GITHUB_ENV). */
export interface ActionResult {
  ok: boolean;
  log: string;
  annotations?: Annotation[];
  path?: string[];
  env?: Record<string, string>;
  outputs?: Record<string, string>;
}

export interface ActionContext {
  workspace: string;
  /** The step's process environment (PATH with the job's GITHUB_PATH entries first). */
  env: Record<string, string>;
  input(name: string): string;
  /** `name@version` (pnpm@10.34.9, yarn@4.18.1, yarn@1.22.22) → a bin directory holding that tool's executable. */
  tools: Record<string, string>;
}

/** The image's defaults: its global Yarn, and what corepack runs when no `packageManager` names a version. */
export const IMAGE_YARN = '1.22.22';

/** `core.setFailed(message)`: an error annotation, and the step fails. */
const failed = (message: string, log = ''): ActionResult => ({
  ok: false,
  log: `${log}##[error]${message}\n`,
  annotations: [{ level: 'error', title: '', message }],
});

const globPart = (part: string) =>
  part
    .split('')
    .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : /[.+^${}()|\\]/.test(c) ? `\\${c}` : c))
    .join('');

/** A pattern of @actions/glob as a regular expression over absolute paths (`**` is any number of directories). */
function patternRe(pattern: string): RegExp {
  let re = '';
  pattern.split('/').forEach((seg, i, all) => {
    if (seg === '**') re += i === all.length - 1 ? '(?:/.*)?' : '(?:/[^/]+)*';
    else re += `${i === 0 ? '' : '/'}${globPart(seg)}`;
  });
  return new RegExp(`^${re}$`);
}

function walk(dir: string, into: string[]) {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const full = path.join(dir, name);
    into.push(full);
    if (lstatSync(full).isDirectory()) walk(full, into);
  }
}

/**
 * @actions/glob: one pattern a line (`#` comments, `!` excludes), relative ones rooted at `cwd`; a matched directory
 * brings every file under it (implicitDescendants). Files only, sorted.
 */
export function globFiles(cwd: string, patterns: string): string[] {
  const lines = patterns
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const include: RegExp[] = [];
  const exclude: RegExp[] = [];
  const roots = new Set<string>();
  for (const line of lines) {
    const negate = line.startsWith('!');
    const abs = path.resolve(cwd, negate ? line.slice(1) : line);
    (negate ? exclude : include).push(patternRe(abs));
    if (!negate) {
      const segs = abs.split('/');
      const wild = segs.findIndex((s) => /[*?[]/.test(s));
      roots.add(wild < 0 ? abs : segs.slice(0, wild).join('/') || '/');
    }
  }
  const all: string[] = [];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    all.push(root);
    if (lstatSync(root).isDirectory()) walk(root, all);
  }
  const matched = new Set<string>();
  for (const p of all) {
    const hit = (res: RegExp[]) => res.some((re) => re.test(p) || [...ancestors(p)].some((a) => re.test(a)));
    if (hit(include) && !hit(exclude) && lstatSync(p).isFile()) matched.add(p);
  }
  return [...matched].sort();
}

function* ancestors(p: string) {
  for (let at = path.dirname(p); at !== path.dirname(at); at = path.dirname(at)) yield at;
}

/** hashFiles(): the sha256 of the matched files' sha256s; files outside the workspace are ignored; '' when none. */
export function hashFiles(workspace: string, patterns: string): string {
  const outer = createHash('sha256');
  let any = false;
  for (const file of globFiles(workspace, patterns)) {
    if (!file.startsWith(`${workspace}${path.sep}`)) continue;
    outer.write(createHash('sha256').update(readFileSync(file)).digest());
    any = true;
  }
  return any ? outer.digest('hex') : '';
}

/** `which`: the executable's path on PATH, or undefined. */
function which(tool: string, env: Record<string, string>): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, tool);
    if (existsSync(file)) return file;
  }
  return undefined;
}

const unableToLocate = (tool: string) =>
  `Unable to locate executable file: ${tool}. Please verify either the file path exists or the file can be found within a directory specified by the PATH environment variable. Also check the file mode to verify the file is executable.`;

/** The package.json fields the actions read. */
interface Manifest {
  volta?: { node?: string; extends?: string };
  devEngines?: { runtime?: unknown; packageManager?: unknown };
  engines?: { node?: string };
  packageManager?: unknown;
}

/** util.ts getNodeVersionFromFile: volta.node, devEngines.runtime (node), engines.node, volta.extends; else the text. */
function nodeVersionFromFile(file: string): string | null {
  const contents = readFileSync(file, 'utf8');
  try {
    const manifest = JSON.parse(contents) as Manifest | null;
    if (typeof manifest === 'object' && manifest) {
      if (manifest.volta?.node) return String(manifest.volta.node);
      const runtime = [manifest.devEngines?.runtime ?? []].flat() as { name?: string; version?: string }[];
      const node = runtime.find((r) => r.name?.toLowerCase() === 'node' && r.version);
      if (node) return node.version!;
      if (manifest.engines?.node) return String(manifest.engines.node);
      if (manifest.volta?.extends) return nodeVersionFromFile(path.resolve(path.dirname(file), String(manifest.volta.extends)));
      return null;
    }
  } catch {
    // not JSON
  }
  return /^(?:node(js)?\s+)?v?(?<version>[^\s]+)$/m.exec(contents)?.groups?.version ?? contents.trim();
}

const LOCKFILES: Record<string, string[]> = {
  npm: ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock'],
  pnpm: ['pnpm-lock.yaml'],
  yarn: ['yarn.lock'],
};

/**
 * actions/setup-node v6.5.0. The Node itself is not installed (every job runs this machine's Node; the log names
 * the version asked for); the inputs are read and fail as the action does: `node-version-file` from the workspace,
 * a warning when both are given, and with `cache` (or npm named by package.json's packageManager) the package
 * manager's cache folder (pnpm must be on PATH, `yarn --version` must run in each project directory), then the
 * lockfile: `cache-dependency-path` globbed from the workspace, else a lockfile in the workspace root.
 */
export function setupNode(ctx: ActionContext): ActionResult {
  const { workspace, input } = ctx;
  const annotations: Annotation[] = [];
  const warn = (message: string) => annotations.push({ level: 'warning', title: '', message });
  const fail = (message: string) => {
    const f = failed(message, log);
    return { ...f, annotations: [...annotations, ...f.annotations!] };
  };
  let log = '';
  let version = input('node-version');
  const versionFile = input('node-version-file');
  if (version && versionFile) warn('Both node-version and node-version-file inputs are specified, only node-version will be used');
  if (!version && versionFile) {
    const file = path.join(workspace, versionFile);
    if (!existsSync(file)) return fail(`The specified node version file at: ${file} does not exist`);
    const parsed = nodeVersionFromFile(file);
    if (parsed) version = parsed;
    else warn(`Could not determine node version from ${file}. Falling back`);
    log += `Resolved ${versionFile} as ${version}\n`;
  }
  log += `node ${version || "(the runner's own)"}\n`;
  const dependencyPath = input('cache-dependency-path');
  let pm = input('cache');
  if (!pm && (input('package-manager-cache') || 'true').toUpperCase() === 'TRUE') pm = npmFromPackageJson(workspace) ?? '';
  if (pm) {
    if (!LOCKFILES[pm]) return fail(`Caching for '${pm}' is not supported`);
    if (pm === 'pnpm' && !which('pnpm', ctx.env)) return fail(unableToLocate('pnpm'));
    if (pm === 'yarn') {
      let dirs = [workspace];
      if (dependencyPath) {
        dirs = [...new Set(globFiles(workspace, dependencyPath).map((f) => realpathSync(path.dirname(f))))];
        if (dirs.length === 0) warn(`No existing directories found containing cache-dependency-path="${dependencyPath}"`);
      }
      for (const dir of dirs) {
        if (!which('yarn', ctx.env)) return fail(unableToLocate('yarn'));
        const out = spawnSync('yarn', ['--version'], { cwd: dir, env: ctx.env, encoding: 'utf8' });
        if (out.status !== 0) return fail(out.stderr.trim() || `The 'yarn --version' command failed with exit code: ${out.status}`);
        log += `yarn ${out.stdout.trim()} in ${dir}\n`;
      }
    }
    let lockfile = dependencyPath;
    if (!lockfile) {
      const found = LOCKFILES[pm]!.find((f) => readdirSync(workspace).includes(f));
      if (!found) return fail(`Dependencies lock file is not found in ${workspace}. Supported file patterns: ${LOCKFILES[pm]!.toString()}`);
      lockfile = path.join(workspace, found);
    }
    if (!hashFiles(workspace, lockfile)) return fail('Some specified paths were not resolved, unable to cache dependencies.');
    log += `${pm} cache is not found\n`;
  }
  return { ok: true, log, annotations, outputs: { 'cache-hit': 'false' } };
}

/** main.ts getNameFromPackageManagerField: npm named by the workspace root's devEngines.packageManager or packageManager. */
function npmFromPackageJson(workspace: string): string | undefined {
  const npm = /^(\^)?npm(@.*)?$/;
  try {
    const manifest = JSON.parse(readFileSync(path.join(workspace, 'package.json'), 'utf8')) as Manifest;
    const dev = [manifest.devEngines?.packageManager ?? []].flat() as { name?: unknown }[];
    if (dev.some((d) => typeof d?.name === 'string' && npm.test(d.name))) return 'npm';
    if (typeof manifest.packageManager === 'string' && npm.test(manifest.packageManager)) return 'npm';
  } catch {
    // no package.json at the root
  }
  return undefined;
}

/**
 * pnpm/action-setup v4.0.0: the version from `version`, else `packageManager` in `package_json_file` (relative to
 * the workspace, default package.json at its root), with the action's errors; the real pnpm of that version
 * (from `tools`) is put on PATH, PNPM_HOME set.
 */
export function setupPnpm(ctx: ActionContext): ActionResult {
  const version = ctx.input('version');
  const file = ctx.input('package_json_file') || 'package.json';
  const standalone = ctx.input('standalone') === 'true';
  const runInstall = ctx.input('run_install');
  // The action's main().catch: console.error(error), then setFailed(error), whose message is error.toString().
  const error = (message: string) => failed(`Error: ${message}`, `Error: ${message}\n`);
  if (runInstall !== '' && runInstall !== 'null' && runInstall !== 'false')
    return { ok: false, log: 'the local runner does not model pnpm/action-setup run_install' };
  let packageManager: unknown;
  try {
    ({ packageManager } = JSON.parse(readFileSync(path.join(ctx.workspace, file), 'utf8')) as { packageManager?: unknown });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return error((e as Error).message);
  }
  let target: string;
  if (version) {
    if (typeof packageManager === 'string' && packageManager.replace('pnpm@', '') !== version)
      return error(`Multiple versions of pnpm specified:
  - version ${version} in the GitHub Action config with the key "version"
  - version ${packageManager} in the package.json with the key "packageManager"
Remove one of these versions to avoid version mismatch errors like ERR_PNPM_BAD_PM_VERSION`);
    target = `pnpm@${version}`;
  } else if (typeof packageManager !== 'string') {
    return error(`No pnpm version is specified.
Please specify it by one of the following ways:
  - in the GitHub Action config with the key "version"
  - in the package.json with the key "packageManager"`);
  } else if (!packageManager.startsWith('pnpm@')) {
    return error('Invalid packageManager field in package.json');
  } else target = packageManager;
  const exact = target.replace(/^pnpm@/, '').replace(/\+.*$/, '');
  const bin = ctx.tools[`pnpm@${exact}`];
  if (!bin) return { ok: false, log: `the local runner has no pnpm ${exact} (RunOptions.tools): the action would install ${target}` };
  const dest = (ctx.input('dest') || '~/setup-pnpm').replace(/^~/, ctx.env.HOME ?? '');
  return {
    ok: true,
    log: `installed ${standalone ? target.replace(/^pnpm@/, '@pnpm/exe@') : target}\nInstallation Completed!\n`,
    path: [bin],
    env: { PNPM_HOME: bin },
    outputs: { dest, bin_dest: path.join(dest, 'node_modules', '.bin') },
  };
}

/**
 * The runner image's tools in `dir` (first on PATH after GITHUB_PATH's): `corepack` (whose `enable` puts yarn, yarnpkg,
 * pnpm and pnpx shims here, as beside the image's Node) and the image's global `yarn` (Yarn 1, which refuses a
 * project whose packageManager names another Yarn). A shim runs the real tool from `tools`.
 */
export function writeImageTools(dir: string, tools: Record<string, string>) {
  writeFileSync(path.join(dir, '.tools.json'), JSON.stringify(tools));
  writeFileSync(path.join(dir, '.shim.mjs'), SHIM);
  const wrapper = (name: string, mode: string, as = name) => {
    writeFileSync(path.join(dir, name), `#!/usr/bin/env bash\nexec node "$(dirname "$0")/.shim.mjs" ${mode} ${as} "$@"\n`);
    chmodSync(path.join(dir, name), 0o755);
  };
  wrapper('corepack', 'corepack-cli');
  wrapper('yarn', 'global');
}

// The shims' program (kept in this file so the runner is one unit). Corepack's rules: the nearest package.json with
// a packageManager field, walking up from the working directory; another manager named there is a usage error
// (COREPACK_ENABLE_STRICT, on by default); none named: its default version.
const SHIM = `import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const here = path.dirname(new URL(import.meta.url).pathname);
const tools = JSON.parse(readFileSync(path.join(here, '.tools.json'), 'utf8'));
const DEFAULTS = { yarn: '${IMAGE_YARN}' };
const [mode, name, ...args] = process.argv.slice(2);
const run = (tool, version, argv, env, exe = tool) => {
  const bin = tools[tool + '@' + version];
  if (!bin) {
    console.error('the local runner has no ' + tool + '@' + version + ' (RunOptions.tools)');
    process.exit(1);
  }
  const out = spawnSync(path.join(bin, exe), argv, { stdio: 'inherit', env });
  process.exit(out.status ?? 1);
};
const corepack = (tool, argv, exe = tool) => {
  let found;
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pm = JSON.parse(readFileSync(file, 'utf8')).packageManager;
      if (typeof pm === 'string') { found = { pm, file }; break; }
    }
    if (path.dirname(dir) === dir) break;
  }
  const m = found && /^(npm|pnpm|yarn)@([^+]+)/.exec(found.pm);
  if (m && m[1] !== tool && process.env.COREPACK_ENABLE_STRICT !== '0') {
    console.error('Usage Error: This project is configured to use ' + m[1] + ' because ' + found.file + ' has a "packageManager" field');
    process.exit(1);
  }
  const version = m && m[1] === tool ? m[2] : DEFAULTS[tool];
  if (!version) {
    console.error('the local runner models no default ' + tool + ' for corepack: name it in packageManager');
    process.exit(1);
  }
  run(tool, version, argv, { ...process.env, COREPACK_ROOT: here }, exe);
};
if (mode === 'global') run('yarn', DEFAULTS.yarn, args, process.env);
else if (mode === 'corepack') corepack(name === 'yarnpkg' ? 'yarn' : name === 'pnpx' ? 'pnpm' : name, args, name === 'yarnpkg' ? 'yarn' : name);
else if (args[0] === 'enable') {
  const names = args.slice(1).filter((a) => !a.startsWith('-'));
  for (const tool of names.length ? names : ['yarn', 'pnpm']) {
    for (const shim of tool === 'yarn' ? ['yarn', 'yarnpkg'] : tool === 'pnpm' ? ['pnpm', 'pnpx'] : []) {
      writeFileSync(path.join(here, shim), '#!/usr/bin/env bash\\nexec node "$(dirname "$0")/.shim.mjs" corepack ' + shim + ' "$@"\\n');
      chmodSync(path.join(here, shim), 0o755);
    }
  }
} else if (args[0] === 'yarn' || args[0] === 'pnpm') corepack(args[0], args.slice(1));
else {
  console.error('the local runner models corepack enable, corepack yarn and corepack pnpm only (not ' + args.join(' ') + ')');
  process.exit(1);
}
`;

/** What an attest stand-in recorded: the statement's subjects and predicate, as actions/attest would sign them. */
export interface Attestation {
  subjects: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: unknown;
}

/**
 * actions/attest v4.1.0 (and attest-build-provenance v4.1.0, which calls it): nothing without the `id-token: write`
 * permission, the input rules of detect.ts, subject.ts and predicate.ts (a custom predicate needs predicate-type;
 * exactly one subject input; subject-path is globbed, each file's sha256), then the statement is recorded, not signed.
 * Storing it needs `attestations: write`.
 */
export function attest(ctx: ActionContext, grants: (scope: string) => string): ActionResult & { attestation?: Attestation } {
  const input = ctx.input;
  const error = (message: string) => failed(message);
  if (grants('id-token') !== 'write')
    return error('missing "id-token" permission. Please add "permissions: id-token: write" to your workflow.');
  const predicateType = input('predicate-type');
  const predicateText = input('predicate');
  const predicatePath = input('predicate-path');
  if (input('sbom-path') && (predicateType || predicateText || predicatePath))
    return error('Cannot specify sbom-path together with predicate-type, predicate, or predicate-path');
  if ((predicateText || predicatePath) && !predicateType) return error('predicate-type is required when using predicate or predicate-path');
  if (!predicateType) return { ok: false, log: 'the local runner models custom predicates only (predicate-type)' };
  const subjectInputs = [input('subject-path'), input('subject-digest'), input('subject-checksums')].filter(Boolean);
  if (subjectInputs.length === 0) return error('One of subject-path, subject-digest, or subject-checksums must be provided');
  if (subjectInputs.length > 1) return error('Only one of subject-path, subject-digest, or subject-checksums may be provided');
  const subjects: Attestation['subjects'] = [];
  if (input('subject-path')) {
    const patterns = input('subject-path')
      .split(/[\n,]/)
      .map((p) => p.trim())
      .filter(Boolean)
      .join('\n');
    for (const file of globFiles(ctx.workspace, patterns)) {
      const name = input('subject-name') || path.basename(file);
      const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      if (!subjects.some((s) => s.name === name && s.digest.sha256 === sha256)) subjects.push({ name, digest: { sha256 } });
    }
    if (subjects.length === 0) return error(`Could not find subject at path ${input('subject-path')}`);
  } else if (input('subject-digest')) {
    const digest = input('subject-digest');
    if (!input('subject-name')) return error('subject-name must be provided when using subject-digest');
    if (!/^sha256:[A-Za-z0-9]{64}$/.test(digest)) return error('subject-digest must be in the format "sha256:<hex-digest>"');
    subjects.push({ name: input('subject-name'), digest: { sha256: digest.slice(7) } });
  } else return { ok: false, log: 'the local runner does not model subject-checksums' };
  if (predicateText && predicatePath) return error('Only one of predicate-path or predicate may be provided');
  if (!predicateText && !predicatePath) return error('One of predicate-path or predicate must be provided');
  let params = predicateText;
  if (predicatePath) {
    const file = path.resolve(ctx.workspace, predicatePath);
    if (!existsSync(file)) return error(`predicate file not found: ${predicatePath}`);
    params = readFileSync(file, 'utf8');
  }
  let predicate: unknown;
  try {
    predicate = JSON.parse(params);
  } catch (e) {
    return error((e as Error).message);
  }
  if (grants('attestations') !== 'write')
    return error('Failed to persist attestation: Resource not accessible by integration (the attestations: write permission)');
  return {
    ok: true,
    log: subjects.map((s) => `Attestation created for ${s.name}@sha256:${s.digest.sha256}`).join('\n'),
    outputs: { 'bundle-path': path.join(ctx.env.RUNNER_TEMP ?? ctx.workspace, 'attestation.json'), 'attestation-id': '1' },
    attestation: { subjects, predicateType, predicate },
  };
}
