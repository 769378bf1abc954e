// Registry metadata, fetched once per package per run: every version, its peer ranges and its dependencies.
import { run } from '../process/exec.js';
import { classifyNpmError } from '../npm/errors.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export interface PackageMeta {
  name: string;
  /** version → peerDependencies (and which of them peerDependenciesMeta marks optional), dependencies when it has any */
  versions: Map<string, { peerDependencies: Record<string, string>; optionalPeers?: string[]; dependencies?: Record<string, string> }>;
}

export interface Registry {
  /** For messages only: npm itself picks the registry of each package (scopes, auth). */
  url(): Promise<string>;
  meta(name: string): Promise<Result<PackageMeta>>;
  /** How many network look-ups were made (one per package is the contract). */
  readonly lookups: number;
  /** Stops look-ups nobody will read (the config turned out to be bad). */
  cancel(): void;
}

export async function registryUrl(): Promise<string> {
  const fromEnv = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  if (fromEnv) return fromEnv;
  const out = await run('npm', ['config', 'get', 'registry'], { timeoutMs: 15_000 });
  const url = out.stdout.trim();
  return out.ok && /^https?:\/\//.test(url) ? url : 'https://registry.npmjs.org/';
}

/** `url` is asked only when a message needs it: a good run never spawns `npm config get`. `signal`: the run's abort. */
export function createRegistry(
  url: () => Promise<string> = registryUrl,
  options: { attempts?: number; timeoutMs?: number; signal?: AbortSignal } = {},
): Registry {
  const cache = new Map<string, Promise<Result<PackageMeta>>>();
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
  let lookups = 0;
  let resolved: Promise<string> | undefined;
  const base = (): Promise<string> => (resolved ??= url().then((u) => (u.endsWith('/') ? u : `${u}/`)));
  return {
    url: base,
    get lookups() {
      return lookups;
    },
    cancel: () => stop.abort(),
    meta(name) {
      let pending = cache.get(name);
      if (!pending) {
        lookups++;
        pending = fetchMeta(base, name, options.attempts ?? 3, options.timeoutMs ?? 30_000, signal);
        cache.set(name, pending);
      }
      return pending;
    },
  };
}

// npm itself reads the metadata, so every npm setting applies (registry per scope, auth, proxy, cafile);
// one `npm view` over every version is one packument request.
async function fetchMeta(
  registry: () => Promise<string>,
  name: string,
  attempts: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Result<PackageMeta>> {
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    // --fetch-retries=0: the harness retries itself. npm's own retries wait 10 s then 60 s after a
    // refused connection, so each attempt ran into our timeout and said ETIMEDOUT after 92 s.
    const out = await run(
      'npm',
      [
        'view',
        `${name}@>=0.0.0-0`,
        'name',
        'version',
        'peerDependencies',
        'peerDependenciesMeta',
        'dependencies',
        '--json',
        '--fetch-retries=0',
        '--loglevel=error',
      ],
      { timeoutMs, signal },
    );
    if (out.cancelled) return fail('infrastructure', `the look-up of ${name} was cancelled`);
    if (out.ok) {
      let meta: PackageMeta | undefined;
      try {
        meta = parseMeta(name, JSON.parse(out.stdout) as RawVersion[] | RawVersion);
      } catch (error) {
        last = `npm view printed no JSON (${errorMessage(error)})`;
      }
      // An empty answer is the registry's failure, never "no such version": retry, then not measured.
      if (meta && meta.versions.size > 0) return ok(meta);
      if (meta) last = 'npm view answered with no versions';
    } else {
      const c = out.timedOut
        ? { code: 'ETIMEDOUT', network: true, message: `no answer within ${timeoutMs} ms` }
        : classifyNpmError(out.stderr || out.error || '');
      const base = await registry();
      if (c.code === 'E404') return fail('usage', `${name} does not exist on the registry ${base} (check the package name in "majors")`);
      last = `${c.code}: ${c.message}`;
      if (!c.network) return fail('infrastructure', `npm view ${name} failed against ${base}: ${last}`);
    }
    if (attempt < attempts && !(await pause(500 * 2 ** (attempt - 1), signal)))
      return fail('infrastructure', `the look-up of ${name} was cancelled`);
  }
  return fail(
    'infrastructure',
    `could not read ${name} from the registry ${await registry()} after ${attempts} attempts (${last}). Check the network or npm's "registry" setting, then run again.`,
  );
}

/** Waits `ms` unless aborted first; false when aborted. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface RawVersion {
  version?: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dependencies?: Record<string, string>;
}

function parseMeta(name: string, raw: RawVersion[] | RawVersion): PackageMeta {
  const versions: PackageMeta['versions'] = new Map();
  for (const v of Array.isArray(raw) ? raw : [raw]) {
    if (!v.version) continue;
    const optional = Object.entries(v.peerDependenciesMeta ?? {}).flatMap(([peer, m]) => (m?.optional ? [peer] : []));
    versions.set(v.version, {
      peerDependencies: v.peerDependencies ?? {},
      ...(optional.length > 0 ? { optionalPeers: optional } : {}),
      ...(v.dependencies && Object.keys(v.dependencies).length > 0 ? { dependencies: v.dependencies } : {}),
    });
  }
  return { name, versions };
}
