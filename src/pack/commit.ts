// Which commit the tested package came from: evidence that names its source (CI's sha, else git).
import { run } from '../process/exec.js';

/** Where `dir` is inside its git checkout (`git rev-parse --show-prefix`): `fixtures/server`, `.` at the root; undefined outside git. */
export async function repoPrefix(dir: string): Promise<string | undefined> {
  const prefix = await run('git', ['-C', dir, 'rev-parse', '--show-prefix'], { timeoutMs: 10_000 });
  if (!prefix.ok) return undefined;
  return prefix.stdout.trim().replace(/\/+$/, '') || '.';
}

export async function sourceCommit(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env.GITHUB_SHA) return env.GITHUB_SHA.slice(0, 12);
  const head = await run('git', ['-C', dir, 'rev-parse', '--short=12', 'HEAD'], { timeoutMs: 10_000 });
  if (!head.ok) return undefined;
  const status = await run('git', ['-C', dir, 'status', '--porcelain', '--', '.'], { timeoutMs: 10_000 });
  return `${head.stdout.trim()}${status.ok && status.stdout.trim() ? '-dirty' : ''}`;
}
