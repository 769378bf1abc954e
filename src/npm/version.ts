// npm's version for a run's records and its tree-cache keys. Read from npm's own package.json when the first `npm`
// on PATH is npm's CLI script (a link to `<npm>/bin/npm-cli.js`, as Node's installers make it): what `npm --version`
// prints, without starting npm (~0.15 CPU-s beside the pack). Anything else on PATH (a shim, a wrapper) is run.
import { constants } from 'node:fs';
import { access, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';

export async function npmVersionOf(signal?: AbortSignal): Promise<string> {
  const read = await versionOfCli(process.env.PATH ?? '');
  if (read) return read;
  const out = await run('npm', ['--version'], { timeoutMs: 15_000, ...(signal ? { signal } : {}) });
  return out.ok ? out.stdout.trim() : 'unknown';
}

/**
 * The version in npm's package.json when the first executable `npm` on `searchPath` is its npm-cli.js; else undefined.
 * Searched as a spawn searches it (an empty entry is the working directory); never on Windows, where PATHEXT decides.
 */
export async function versionOfCli(searchPath: string, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  if (platform === 'win32') return undefined;
  for (const dir of searchPath.split(path.delimiter)) {
    const bin = path.join(dir || '.', 'npm');
    // The first executable `npm` is the one a spawn would start: only that one is read.
    if (
      !(await access(bin, constants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const cli = await realpath(bin).catch(() => undefined);
    if (!cli || path.basename(cli) !== 'npm-cli.js' || path.basename(path.dirname(cli)) !== 'bin') return undefined;
    const manifest = await readFile(path.join(path.dirname(cli), '..', 'package.json'), 'utf8')
      .then((text) => JSON.parse(text) as { name?: unknown; version?: unknown } | null)
      .catch(() => undefined);
    return manifest?.name === 'npm' && typeof manifest.version === 'string' ? manifest.version : undefined;
  }
  return undefined;
}
