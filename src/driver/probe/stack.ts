// Turns a V8 stack string into "where in the package was this created" for leak reports.
// Shared by the probe (inside servers) and the driver (its own handles); builtins only.

import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Frame {
  fn?: string;
  file: string;
  line: number;
}

const FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):\d+\)?$/;

export function parseStack(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const raw of stack.split('\n')) {
    const m = FRAME.exec(raw);
    if (!m) continue;
    let file = m[2] ?? '';
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        // keep the URL as it is
      }
    }
    const frame: Frame = { file, line: Number(m[3]) };
    const fn = m[1]?.replace(/^async /, '').replace(/^new /, '');
    if (fn) frame.fn = fn;
    frames.push(frame);
  }
  return frames;
}

function inside(dir: string | undefined, file: string): boolean {
  if (!dir) return false;
  const d = dir.endsWith(sep) ? dir : dir + sep;
  return file.startsWith(d);
}

function isInternal(file: string): boolean {
  return file.startsWith('node:') || file.startsWith('internal/') || !isAbsolute(file);
}

export interface StackContext {
  packageDir?: string | undefined;
  cellDir?: string | undefined;
  /** Files whose frames never count as the creator (the probe itself). */
  self?: string | string[];
}

export interface Attribution {
  location?: string;
  createdBy?: string;
  inPackage: boolean;
}

/** The innermost frame in the package's own code (not its node_modules); else the innermost non-internal frame. */
export function describeStack(stack: string, ctx: StackContext): Attribution {
  const selves = new Set(Array.isArray(ctx.self) ? ctx.self : ctx.self ? [ctx.self] : []);
  const frames = parseStack(stack).filter((f) => !selves.has(f.file));
  const own = (f: Frame): boolean =>
    inside(ctx.packageDir, f.file) &&
    !relative(ctx.packageDir ?? '', f.file)
      .split(sep)
      .includes('node_modules');
  let index = frames.findIndex(own);
  let base = ctx.packageDir;
  const inPackage = index >= 0;
  if (index < 0) {
    index = frames.findIndex((f) => !isInternal(f.file));
    base = inside(ctx.cellDir, frames[index]?.file ?? '') ? ctx.cellDir : undefined;
  }
  const frame = frames[index];
  if (!frame) return { inPackage: false };
  const file = base ? relative(base, frame.file).split(sep).join('/') : frame.file;
  const out: Attribution = { location: `${file}:${frame.line}`, inPackage };
  const caller = frames[index - 1]?.fn;
  if (caller) out.createdBy = caller.replace(/^Object\./, '');
  return out;
}
