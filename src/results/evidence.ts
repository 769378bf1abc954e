// What a cell's run found out about its install and its processes: leaked handles, the SDK copies a server
// loaded, the environment's evidence, where the install came from. Part of results.json (types.ts).

/** A live handle found when a process should have exited. */
export interface LeakedHandle {
  /** Who held it: `server:stdio`, `server:http`, `driver`. */
  owner: string;
  /** Node's resource type: `Timeout`, `TCPSERVERWRAP`, `TCPWRAP`, `ProcessWrap` … */
  type: string;
  /** Where it was created, relative to the package when possible: `dist/server.js:42`. */
  location?: string;
  /** The creating call, e.g. `setInterval`. */
  createdBy?: string;
}

export interface InstalledPackage {
  name: string;
  version: string;
  /** Path relative to the cell directory, e.g. `node_modules/@modelcontextprotocol/sdk`. */
  path: string;
}

/** What one server process (stdio or http) loaded at run time, as the probe inside it saw it. */
export interface SdkRuntime {
  server: 'stdio' | 'http';
  /** The probe loaded in the server; when false (a bin that is not Node) nothing could be observed. */
  probe: boolean;
  /** The bin is a Node script (started with the probe); else it was run as is, with the probe in NODE_OPTIONS. */
  nodeBin: boolean;
  /** The server answered initialize. */
  answered: boolean;
  /** Every SDK package copy it loaded a file of: real path (relative to the cell when inside it), name and version. */
  copies: InstalledPackage[];
  /** The Node version the process that answered reported (`process.version` inside it, not a launcher's), when the probe loaded. */
  node?: string;
  /** Processes of its group, when it answered, that ran without the probe (a launcher's child with NODE_OPTIONS of its own). */
  unobserved?: { pid: number; command: string; why: string }[];
}

export interface EnvironmentEvidence {
  harnessVersion: string;
  /** The Node version the servers reported (the host's when no server was observed). */
  node: string;
  npm: string;
  os: string;
  package: { name: string; version: string };
  tarball: { file: string; size: number; sha512: string };
  /** Every copy of every SDK package found in the cell tree. */
  sdkPackages: InstalledPackage[];
  lockfileSha256?: string;
  installMs: number;
  installAttempts: number;
  /** Where the cell's node_modules came from (absent in results written before install reuse). */
  installSource?: InstallSourceRef;
  /** The SDK range(s) the installed package declares, by package name. */
  declaredRanges: Record<string, string>;
  /** Without a range of its own: the dependency through which the package claims the SDK and that range (`through fastmcp@3.1.0: @modelcontextprotocol/sdk ^1.17.2`). */
  sdkClaim?: string;
  /** The SDK copies the running stdio and http servers loaded (absent when no server was observed). */
  loadedSdk?: SdkRuntime[];
}

/**
 * npm's own install (and why no stored tree was reused), or a verified tree of the per-user tree cache that
 * npm, run now, resolved the same (its lockfile's sha256 and the cache entry), completed by npm with this run's tarball.
 */
export type InstallSourceRef =
  | { source: 'npm'; reason: string }
  /** A strict leg (`cells[].install: 'pnpm-strict'`): real pnpm with `hoist=false`, its store. */
  | { source: 'pnpm-strict'; pnpm: string; store: string }
  /** A strict leg (`cells[].install: 'yarn-pnp'`): real Yarn Berry with Plug'n'Play, its global folder (cache). */
  | { source: 'yarn-pnp'; yarn: string; store: string }
  | {
      source: 'reused';
      lockfileSha256: string;
      entry: string;
      /** Within the reuse window: when npm resolved this tree (not now), its age, and the tarball swapped in with no npm run. */
      resolvedAt?: string;
      ageMs?: number;
      swapped?: boolean;
    };
