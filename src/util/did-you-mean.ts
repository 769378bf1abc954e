// The closest known word to a mistyped one: keys, flags and commands.

/** Edit distance (insert, delete, substitute, swap adjacent), case-insensitive. */
export function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

/** The best candidate within a third of the word's length (one edit for short words); a key that merely
 * lengthens the word (`timeout` → `timeoutMs`) counts by its prefix. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3));
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const whole = distance(word, c);
    const prefix = c.length > word.length && word.length >= 3 ? distance(word, c.slice(0, word.length)) + 0.5 : Infinity;
    const d = Math.min(whole, prefix);
    if (d <= limit && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c === undefined || c === word ? '' : ` (did you mean "${c}"?)`;
}
