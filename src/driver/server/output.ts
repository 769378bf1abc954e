// Bounded capture of a server's output: memory must not grow with a server that floods it. What is
// kept is masked before it is cut (see redact.ts), so a secret straddling a cut leaves no piece.
import type { Cut } from './redact.js';

/** Masks a text, then cuts it to `max` characters; the driver passes its redactor's `clip`. */
export type Clip = (text: string, max: number, cut?: Cut) => string;

const plainClip: Clip = (text, max) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Keeps only the last `limit` characters: a flooding server costs nothing more. */
export class TailBuffer {
  private text = '';
  /** Characters were dropped from the front: the window may start inside a secret. */
  private cut = false;
  private readonly limit: number;
  private readonly clip: Clip;
  constructor(limit = 8192, clip: Clip = plainClip) {
    this.limit = limit;
    this.clip = clip;
  }
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.limit) {
      this.text = this.text.slice(-this.limit);
      this.cut = true;
    }
  }
  tail(lines = 20): string {
    return this.clip(this.text, Infinity, { before: this.cut })
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-lines)
      .join('\n');
  }
}

/** The first `maxLines` lines (each masked, then cut to `maxChars`), plus a count of the rest. */
export class NoiseLog {
  readonly lines: string[] = [];
  dropped = 0;
  private readonly maxLines: number;
  private readonly maxChars: number;
  private readonly clip: Clip;
  constructor(maxLines = 20, maxChars = 300, clip: Clip = plainClip) {
    this.maxLines = maxLines;
    this.maxChars = maxChars;
    this.clip = clip;
  }
  /** `truncated`: the caller already cut the end of this line (an endless line). */
  push(line: string, truncated = false): void {
    if (this.lines.length < this.maxLines) this.lines.push(this.clip(line, this.maxChars, { after: truncated }));
    else this.dropped++;
  }
}
