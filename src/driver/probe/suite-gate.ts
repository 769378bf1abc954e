// Preloaded (`node --import <this> <suite CLI> server --url … --scenario …`) into a conformance suite process
// started ahead of its turn (phases/conformance.ts): it loads the modules the CLI imports, then holds until the
// driver closes its stdin, the scenario's turn. Only then does Node run the CLI itself, with its own arguments,
// so the scenario starts, talks to the server and exits as in a process started at that moment; the loading
// (~0.5 s of a scenario's 0.6) has overlapped the scenario before it.
// Rules: never print, never fail the suite: a module that cannot be loaded here is left for the CLI to load
// (and to report) as it always does.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { staticImports } from './static-imports.js';

const turn = new Promise<void>((resolve) => {
  process.stdin.on('data', () => undefined);
  process.stdin.once('end', resolve);
  process.stdin.once('close', resolve);
  process.stdin.once('error', () => resolve());
});

/** The CLI's imports, resolved as the CLI resolves them (from its own URL), loaded now; Node < 22.15 only waits. */
async function warm(cli: string | undefined): Promise<void> {
  const register = (module as { registerHooks?: RegisterHooks }).registerHooks;
  if (!cli || !register) return;
  const parentURL = pathToFileURL(cli).href;
  const self = import.meta.url;
  const hooks = register({
    resolve: (specifier, context, next) => next(specifier, context.parentURL === self ? { ...context, parentURL } : context),
  });
  try {
    for (const specifier of staticImports(readFileSync(cli, 'utf8'))) await import(specifier).catch(() => undefined);
  } finally {
    hooks.deregister();
  }
}

type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: { parentURL?: string }, next: (s: string, c: { parentURL?: string }) => unknown) => unknown;
}) => { deregister(): void };

await warm(process.argv[1]).catch(() => undefined);
await turn;
process.stdin.destroy();
