// The config rules that span keys (a pin's major has a recipe, axis entries and ids are distinct), and a cell's id;
// schema.ts runs them after the per-key shapes.
import type { z } from 'zod';
import { CLIENT_PACKAGES, DEFAULT_MAJORS, pinMajor } from './majors.js';

type Ctx = z.RefinementCtx;
type Path = (string | number)[];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pins of unknown majors and repeated axis entries; reads the raw input, so it runs even when other keys are wrong. */
export function axisIssues(cfg: unknown, ctx: Ctx): void {
  const raw = cfg as { cells?: unknown; majors?: unknown; clients?: unknown; node?: unknown };
  const majors = Object.keys({ ...DEFAULT_MAJORS, ...(isRecord(raw.majors) ? raw.majors : {}) });
  const cells = Array.isArray(raw.cells) ? raw.cells : [];
  cells.forEach((cell: unknown, i) => {
    const pin = isRecord(cell) && typeof cell.pin === 'string' ? cell.pin : undefined;
    const major = pin === undefined ? undefined : pinMajor(pin);
    if (major !== undefined && !majors.includes(major)) {
      ctx.addIssue({
        code: 'custom',
        path: ['cells', i, 'pin'],
        message: `no install recipe for SDK major ${major} (known: ${majors.join(', ')}); pin a version of a known major, or add a recipe under "majors"`,
      });
    }
  });
  const axisLists: [unknown, Path][] = [
    [raw.clients, ['clients']],
    [raw.node, ['node']],
    ...cells.flatMap((cell: unknown, i): [unknown, Path][] =>
      isRecord(cell)
        ? [
            [cell.clients, ['cells', i, 'clients']],
            [cell.node, ['cells', i, 'node']],
          ]
        : [],
    ),
  ];
  for (const [list, at] of axisLists) {
    if (!Array.isArray(list)) continue;
    const isClients = at.at(-1) === 'clients';
    const seen = new Map<string, number>();
    list.forEach((entry: unknown, j) => {
      if (typeof entry !== 'string' && typeof entry !== 'number') return;
      const key = String(entry);
      const first = seen.get(key);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [...at, j],
          message: `"${key}" is listed twice (also [${first}]): each variant needs a distinct id`,
        });
      else seen.set(key, j);
      const major = isClients && typeof entry === 'string' ? pinMajor(entry) : undefined;
      if (major !== undefined && CLIENT_PACKAGES[major] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [...at, j],
          message: `no client package for SDK major ${major} (known: ${Object.entries(CLIENT_PACKAGES)
            .map(([m, p]) => `${m} → ${p}`)
            .join(', ')})`,
        });
    });
  }
}

interface ParsedKeys {
  package?: string | undefined;
  tarball?: string | undefined;
  secrets?: (string | { name: string })[] | undefined;
  cells: { pin: string; id?: string | undefined; install?: string | undefined }[];
}

/** Secrets and cell ids each named once; package or tarball, not both. */
export function uniquenessIssues(cfg: ParsedKeys, ctx: Ctx): void {
  const names = new Map<string, number>();
  (cfg.secrets ?? []).forEach((s, i) => {
    const name = typeof s === 'string' ? s : s.name;
    const first = names.get(name);
    if (first !== undefined)
      ctx.addIssue({ code: 'custom', path: ['secrets', i], message: `secret ${name} is listed twice (also [${first}])` });
    else names.set(name, i);
  });
  if (cfg.package && cfg.tarball) {
    ctx.addIssue({ code: 'custom', path: ['tarball'], message: 'give either package or tarball, not both' });
  }
  const seen = new Map<string, number>();
  cfg.cells.forEach((cell, i) => {
    const id = cellIdOf(cell);
    const first = seen.get(id);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cells', i, 'id'],
        message: `duplicate cell id "${id}" (also cells[${first}]); set a distinct id`,
      });
    } else seen.set(id, i);
  });
}

/** A cell's id: the one it names, else its pin's; a strict leg's default gains its install (`latest-1-pnpm-strict`). */
export function cellIdOf(cell: { pin: string; id?: string | undefined; install?: string | undefined }): string {
  return cell.id ?? `${cellIdFromPin(cell.pin)}${cell.install && cell.install !== 'npm' ? `-${cell.install}` : ''}`;
}

export function cellIdFromPin(pin: string): string {
  return pin.replace(/@/g, '-');
}
