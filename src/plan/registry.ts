// Registry metadata, fetched once per package per run (abbreviated packuments carry every version's peers).
import { run } from '../process/exec.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export interface PackageMeta {
  name: string;
  distTags: Record<string, string>;
  /** version → peerDependencies */
  versions: Map<string, { peerDependencies: Record<string, string> }>;
}

export interface Registry {
  url: string;
  meta(name: string): Promise<Result<PackageMeta>>;
  /** How many network look-ups were made (one per package is the contract). */
  readonly lookups: number;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

export async function registryUrl(): Promise<string> {
  const fromEnv = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  if (fromEnv) return fromEnv;
  const out = await run('npm', ['config', 'get', 'registry'], { timeoutMs: 15_000 });
  const url = out.stdout.trim();
  return out.ok && /^https?:\/\//.test(url) ? url : 'https://registry.npmjs.org/';
}

export function createRegistry(url: string, options: { attempts?: number; timeoutMs?: number } = {}): Registry {
  const cache = new Map<string, Promise<Result<PackageMeta>>>();
  let lookups = 0;
  const base = url.endsWith('/') ? url : `${url}/`;
  return {
    url: base,
    get lookups() {
      return lookups;
    },
    meta(name) {
      let pending = cache.get(name);
      if (!pending) {
        lookups++;
        pending = fetchMeta(base, name, options.attempts ?? 3, options.timeoutMs ?? 30_000);
        cache.set(name, pending);
      }
      return pending;
    },
  };
}

async function fetchMeta(base: string, name: string, attempts: number, timeoutMs: number): Promise<Result<PackageMeta>> {
  const url = `${base}${name.replace('/', '%2f')}`;
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status === 404) return fail('usage', `${name} does not exist on the registry ${base} (check the package name in "majors")`);
      if (!res.ok) {
        last = `HTTP ${res.status} from ${url}`;
        if (!RETRYABLE_STATUS.has(res.status)) break;
      } else {
        return ok(parseMeta(name, (await res.json()) as RawPackument));
      }
    } catch (error) {
      last = `${errorMessage(error)}${error instanceof Error && error.cause ? ` (${errorMessage(error.cause)})` : ''}`;
    }
    if (attempt < attempts) await new Promise((r) => setTimeout(r, 500 * 2 ** (attempt - 1)));
  }
  return fail(
    'infrastructure',
    `could not read ${name} from the registry ${base} after ${attempts} attempts: ${last}. Check the network or npm's "registry" setting, then run again.`,
  );
}

interface RawPackument {
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, { peerDependencies?: Record<string, string> }>;
}

function parseMeta(name: string, raw: RawPackument): PackageMeta {
  const versions = new Map<string, { peerDependencies: Record<string, string> }>();
  for (const [v, m] of Object.entries(raw.versions ?? {})) versions.set(v, { peerDependencies: m.peerDependencies ?? {} });
  return { name, distTags: raw['dist-tags'] ?? {}, versions };
}
