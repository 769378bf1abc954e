// Every message leaving the driver passes through one redactor, so a secret (the HTTP phase's
// bearer token) cannot leak through an error message, a stderr tail or a detail field.

export const MASK = '***';

export class Redactor {
  private readonly secrets = new Set<string>();

  add(secret: string): void {
    // Short strings would mask ordinary words; the driver's tokens are 48 hex characters.
    if (secret.length >= 8) this.secrets.add(secret);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) out = out.split(secret).join(MASK);
    return out;
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
