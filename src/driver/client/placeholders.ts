// Per-cell placeholders: `{cellDir}` (the cell's directory) and `{tmp}` (a scratch directory inside it, so it
// goes when the cell goes and two cells never share one). Substituted once, in the whole spec, before any
// phase runs; `{host}`, `{port}` and `{token}` are left for the phases that choose them.

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DriverSpec, ServerCommand } from '../../contract/protocol.js';

/** `<workDir>/tmp`: a variant's own when the spec names its work dir (variants of a cell may run at once). */
export function scratchDir(cellDir: string, workDir?: string): string {
  return join(workDir ?? join(cellDir, '.mcp-matrix'), 'tmp');
}

/** A fresh, empty scratch directory for this cell (this variant). */
export function makeScratchDir(cellDir: string, workDir?: string): string {
  const dir = scratchDir(cellDir, workDir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function cellPlaceholders(spec: DriverSpec): DriverSpec {
  const values: Record<string, string> = { cellDir: spec.cellDir, tmp: scratchDir(spec.cellDir, spec.workDir) };
  const sub = (text: string): string => text.replace(/\{(cellDir|tmp)\}/g, (_m, key: string) => values[key]!);
  const env = (e: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, sub(v)]));
  const command = (c: ServerCommand): ServerCommand => ({ ...c, args: c.args.map(sub), env: env(c.env) });
  const { stdio, http, bind } = spec.phases;
  return {
    ...spec,
    baseEnv: env(spec.baseEnv),
    ...(spec.client ? { client: { ...spec.client, roots: spec.client.roots.map((r) => ({ ...r, uri: sub(r.uri) })) } } : {}),
    phases: {
      ...spec.phases,
      stdio: stdio && { ...stdio, command: command(stdio.command) },
      http: http && { ...http, command: command(http.command) },
      bind: bind && { ...bind, command: command(bind.command) },
    },
  };
}
