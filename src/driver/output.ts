// Bounded capture of a server's output: memory must not grow with a server that floods it.

/** Keeps only the last `limit` characters: a flooding server costs nothing more. */
export class TailBuffer {
  private text = '';
  private readonly limit: number;
  constructor(limit = 8192) {
    this.limit = limit;
  }
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.limit) this.text = this.text.slice(-this.limit);
  }
  tail(lines = 20): string {
    return this.text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-lines)
      .join('\n');
  }
}

/** The first `maxLines` lines (each cut to `maxChars`), plus a count of the rest. */
export class NoiseLog {
  readonly lines: string[] = [];
  dropped = 0;
  private readonly maxLines: number;
  private readonly maxChars: number;
  constructor(maxLines = 20, maxChars = 300) {
    this.maxLines = maxLines;
    this.maxChars = maxChars;
  }
  push(line: string): void {
    if (this.lines.length < this.maxLines) this.lines.push(line.length > this.maxChars ? line.slice(0, this.maxChars) + '…' : line);
    else this.dropped++;
  }
}
