// Registry metadata, fetched once per package per run: every version, its peer ranges and its dependencies. Within the reuse
// window (issue 34) a local run may reuse a look-up made minutes ago (`recorded`), and says how old it is.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { sha256 } from '../util/sha256.js';
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
  /** The look-ups this run reused from the window, with when they were made: what the terminal and results.json say. */
  reused?(): { name: string; lookedUpAt: string; ageMs: number }[];
}

/** Where look-ups are kept for the reuse window, and for how long; `context` is npm's configuration (registry, auth). */
export interface LookupStore {
  dir: string;
  ms: number;
  context: string;
  now?: () => number;
}

/** What a look-up reads of each version (a kept look-up is found by them too: one kept with other fields is not used). */
const VIEW_FIELDS = ['name', 'version', 'peerDependencies', 'peerDependenciesMeta', 'dependencies'];

/** A kept look-up's file name starts so (beside the tree cache's entries). */
export const LOOKUP_PREFIX = '.looked-up-';

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
  options: { attempts?: number; timeoutMs?: number; signal?: AbortSignal; recorded?: LookupStore } = {},
): Registry {
  const cache = new Map<string, Promise<Result<PackageMeta>>>();
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
  let lookups = 0;
  let resolved: Promise<string> | undefined;
  const reused: { name: string; lookedUpAt: string; ageMs: number }[] = [];
  const base = (): Promise<string> => (resolved ??= url().then((u) => (u.endsWith('/') ? u : `${u}/`)));
  return {
    url: base,
    get lookups() {
      return lookups;
    },
    cancel: () => stop.abort(),
    reused: () => [...reused].sort((a, b) => (a.name < b.name ? -1 : 1)),
    meta(name) {
      let pending = cache.get(name);
      if (!pending) {
        const fetch = () => {
          lookups++;
          return fetchMeta(base, name, options.attempts ?? 3, options.timeoutMs ?? 30_000, signal);
        };
        const store = options.recorded;
        pending = store ? withinWindow(store, name, fetch, (r) => reused.push(r)) : fetch();
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
    const out = await run('npm', ['view', `${name}@>=0.0.0-0`, ...VIEW_FIELDS, '--json', '--fetch-retries=0', '--loglevel=error'], {
      timeoutMs,
      signal,
    });
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

/** A look-up kept less than `store.ms` ago, else a new one (kept for the next run when it succeeded). */
export async function withinWindow(
  store: LookupStore,
  name: string,
  fetch: () => Promise<Result<PackageMeta>>,
  onReuse: (r: { name: string; lookedUpAt: string; ageMs: number }) => void,
): Promise<Result<PackageMeta>> {
  const file = path.join(store.dir, `${LOOKUP_PREFIX}${sha256(JSON.stringify([store.context, name, VIEW_FIELDS])).slice(0, 24)}.json`);
  const now = store.now?.() ?? Date.now();
  try {
    const kept = JSON.parse(await readFile(file, 'utf8')) as { name?: string; lookedUpAt?: string; versions?: [string, unknown][] };
    const at = Date.parse(kept.lookedUpAt ?? '');
    const ageMs = now - at;
    if (kept.name === name && Array.isArray(kept.versions) && kept.versions.length > 0 && ageMs >= 0 && ageMs < store.ms) {
      onReuse({ name, lookedUpAt: kept.lookedUpAt!, ageMs });
      return ok({ name, versions: new Map(kept.versions as [string, PackageMeta['versions'] extends Map<string, infer V> ? V : never][]) });
    }
  } catch {
    // none kept, or unreadable: look up now
  }
  const fetched = await fetch();
  if (fetched.ok) {
    const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
    const text = JSON.stringify({ name, lookedUpAt: new Date(now).toISOString(), versions: [...fetched.value.versions] });
    await mkdir(store.dir, { recursive: true })
      .then(() => writeFile(partial, `${text}\n`))
      .then(() => rename(partial, file))
      .catch(() => rm(partial, { force: true }).catch(() => undefined));
  }
  return fetched;
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
