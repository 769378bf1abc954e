// init's own flags: the arguments and environment that start the server's Streamable HTTP transport.
import type { HttpConfig } from '../../config/define.js';
import { fail, ok, type Result } from '../../util/result.js';

/** `--http "--transport http --port {port}"` and `--http-env KEY=VALUE` → the http phase config. */
export function parseHttp(args: string | undefined, env: string[]): Result<HttpConfig | undefined> {
  if (args === undefined) {
    return env.length > 0 ? fail('usage', '--http-env needs --http "<the arguments that start the HTTP transport>"') : ok(undefined);
  }
  const split = splitArgs(args);
  if (split.length === 0)
    return fail('usage', '--http needs the arguments that start the HTTP transport, e.g. --http "--transport http --port {port}"');
  const vars: Record<string, string> = {};
  for (const pair of env) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
    if (!m) return fail('usage', `--http-env takes KEY=VALUE (e.g. MCP_TOKEN={token}), got "${pair}"`);
    vars[m[1]!] = m[2]!;
  }
  return ok({ args: split, env: vars });
}

/** Shell-like: whitespace separates, single or double quotes group. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}
