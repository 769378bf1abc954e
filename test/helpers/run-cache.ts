// Work that every test file of one `vitest run` would otherwise repeat (compiling the driver, npm installing
// the same SDK sets and clients), done once per run into the run's directory (MM_TEST_RUN_DIR, made by
// test/global-setup.ts) and handed out by path. Test files run in parallel processes, so the first to ask
// builds under a lock directory and the others wait for its `.done` marker. Outside such a run (no
// MM_TEST_RUN_DIR) nothing is shared: `shared` returns undefined and callers build their own.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The run-scoped directory, or undefined outside a `vitest run` with the global setup. */
export function runCacheDir(): string | undefined {
  const dir = process.env.MM_TEST_RUN_DIR;
  return dir && existsSync(dir) ? dir : undefined;
}

export function keyOf(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
}

export function fileHash(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const building = new Map<string, Promise<string>>();

/**
 * `<run dir>/<name>`, built once per run by `build(dir)` (into an empty dir). Undefined outside a run.
 * A builder that fails leaves nothing behind, so the next caller builds again and sees the error itself.
 */
export function shared(name: string, build: (dir: string) => Promise<void>, timeoutMs = 600_000): Promise<string> | undefined {
  const root = runCacheDir();
  if (!root) return undefined;
  const dir = join(root, name);
  let pending = building.get(dir);
  if (!pending) {
    pending = once(dir, build, timeoutMs);
    building.set(dir, pending);
    pending.catch(() => building.delete(dir));
  }
  return pending;
}

async function once(dir: string, build: (dir: string) => Promise<void>, timeoutMs: number): Promise<string> {
  const done = `${dir}.done`;
  const lock = `${dir}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(done)) return dir;
    try {
      mkdirSync(lock);
    } catch {
      // Another process builds it: wait, unless it died without finishing.
      let owner = 0;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8').trim()) || 0;
      } catch {
        // between its mkdir and its pid: keep waiting
      }
      if (owner && !alive(owner) && !existsSync(done)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${dir}: still being built by pid ${owner} after ${timeoutMs} ms`);
      else await sleep(250);
      continue;
    }
    try {
      // Built between the look at `done` and this lock (its builder has just let go): never removed under its users.
      if (existsSync(done)) return dir;
      writeFileSync(join(lock, 'pid'), String(process.pid));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      await build(dir);
      writeFileSync(done, '');
      return dir;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
