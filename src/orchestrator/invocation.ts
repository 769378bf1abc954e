// How the user started mcp-matrix, so that a printed command can be pasted back as it is: `npx mcp-matrix`
// for an installed copy (npx, an npm script, node_modules/.bin), `node <bin, relative>` for a checkout.
import path from 'node:path';

export function invocation(script = process.argv[1] ?? '', env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (env.npm_command === 'exec' || /[\\/]node_modules[\\/]/.test(script)) return 'npx mcp-matrix';
  // Never an absolute path: a repro line must work on another machine (or CI runner) with the same checkout.
  const rel = path.relative(cwd, script) || script;
  return `node ${rel.split(path.sep).join('/')}`;
}

/** A path as the user can type it from `cwd`: relative, with forward slashes. */
export function portablePath(file: string, cwd = process.cwd()): string {
  return path.relative(cwd, file).split(path.sep).join('/') || '.';
}
