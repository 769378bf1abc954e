// One redactor for every message leaving the driver, so a secret cannot leak through an error, a stderr tail or a
// detail. It masks before any cut, and masks encoded forms and long pieces too, so no piece of a secret survives.

export const MASK = '***';

/** A piece of a secret this long or longer is masked wherever it appears. */
export const PIECE = 12;

/** ASCII-only lower case: keeps every index where it was (toLowerCase may not, outside ASCII). */
const lower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/**
 * The forms a secret travels in: as is (any case), base64 and base64url at each of the three byte
 * alignments it can have inside a longer encoded text, and URL-encoded.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([secret, encodeURIComponent(secret)]);
  for (let offset = 0; offset < 3; offset++) {
    const b64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Only the characters whose 6 bits all come from the secret: the same in any enclosing text.
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const stable = b64.slice(first, last);
    if (stable.length >= PIECE) {
      forms.add(stable);
      forms.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
      forms.add(encodeURIComponent(stable));
    }
  }
  return [...forms];
}

/** Where a text was already cut before it reached the redactor. */
export interface Cut {
  before?: boolean;
  after?: boolean;
}

export class Redactor {
  /** Lower-cased forms of every secret. */
  private readonly forms: string[] = [];
  /** Every PIECE-long substring of every long form: where a match can start. */
  private readonly pieces = new Set<string>();
  /** Forms shorter than PIECE, masked only whole. */
  private short: RegExp | undefined;

  add(secret: string): void {
    // Short strings would mask ordinary words; the driver's tokens are 48 hex characters.
    if (secret.length < 8) return;
    const shortForms: string[] = [];
    for (const form of secretForms(secret).map(lower)) {
      if (this.forms.includes(form)) continue;
      this.forms.push(form);
      if (form.length < PIECE) shortForms.push(form);
      else for (let i = 0; i + PIECE <= form.length; i++) this.pieces.add(form.slice(i, i + PIECE));
    }
    if (shortForms.length > 0) {
      const previous = this.short ? [this.short.source] : [];
      const escaped = shortForms.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.short = new RegExp([...previous, ...escaped].join('|'), 'gi');
    }
  }

  text(value: string): string {
    if (this.forms.length === 0) return value;
    const low = lower(value);
    let out = '';
    let last = 0;
    for (let i = 0; i + PIECE <= value.length;) {
      if (!this.pieces.has(low.slice(i, i + PIECE))) {
        i++;
        continue;
      }
      // Extend the match as far as it stays inside one form of a secret.
      let end = i + PIECE;
      while (end < value.length && this.forms.some((f) => f.includes(low.slice(i, end + 1)))) end++;
      out += value.slice(last, i) + MASK;
      last = end;
      i = end;
    }
    out += value.slice(last);
    return this.short ? out.replace(this.short, MASK) : out;
  }

  /**
   * Masks, then cuts to `max` characters (plus `…`). `cut.before` / `cut.after`: the text was already
   * cut there by someone else, so its first / last characters may be a piece of a secret too short to
   * recognise: they are dropped.
   */
  clip(value: string, max: number, cut: Cut = {}): string {
    let masked = this.text(value);
    if (this.forms.length > 0) {
      // A piece shorter than PIECE ends at the first newline or mask at the latest.
      if (cut.before) masked = masked.slice(edge(masked));
      if (cut.after) masked = reverse(reverse(masked).slice(edge(reverse(masked))));
    }
    return masked.length > max ? `${masked.slice(0, max)}…` : masked;
  }

  /** A deep copy with every string (keys included) redacted; cycles become '[Circular]'. */
  deep<T>(value: T): T {
    return this.walk(value, new WeakSet()) as T;
  }

  private walk(value: unknown, seen: WeakSet<object>): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v, seen));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.walk(v, seen);
    return out;
  }
}

/** How many leading characters may be a piece of a secret cut short: up to PIECE - 1, a newline or a mask. */
function edge(text: string): number {
  const stops = [PIECE - 1, text.indexOf('\n'), text.indexOf(MASK)].filter((i) => i >= 0);
  return Math.min(...stops);
}

const reverse = (text: string): string => [...text].reverse().join('');
