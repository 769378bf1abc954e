// Escaping and formatting shared by the renderers. Everything a server wrote (names, messages,
// stderr, handle locations) is hostile until escaped by one of these functions.

// ANSI escape sequences (CSI … final byte, OSC … BEL/ST, and lone two-byte escapes).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// C0/C1 controls except tab and newlines, plus lone surrogates.
const CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Characters that may not appear anywhere in an XML 1.0 document.
const XML_ILLEGAL = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Removes terminal colour codes and control characters; keeps tabs and newlines (normalised to `\n`). */
export function cleanText(text: string): string {
  return text.replace(ANSI, '').replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/**
 * Makes untrusted text safe inside one Markdown table cell or one line of prose: a single line,
 * no table pipes, no code spans, no HTML, no links, no emphasis, no heading.
 */
export function mdInline(text: string): string {
  const flat = cleanText(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\t/g, ' ')
    .trim();
  const escaped = flat
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([|`*~[\]!])/g, '\\$1')
    // `_` only opens emphasis at a word boundary: `node_modules` stays readable.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
  return escaped.replace(/^#/, '\\#');
}

/** Longest run of consecutive backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** A fenced code block whose fence is longer than any backtick run inside, so the content cannot close it. */
export function fenced(text: string, info = ''): string {
  const body = cleanText(text).replace(/\n+$/, '');
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/**
 * An inline code span for trusted-ish single-line values outside tables (package names, paths,
 * hashes). Not for table cells: GFM splits cells on `|` even inside code spans.
 */
export function codeSpan(text: string): string {
  const flat = cleanText(text).replace(/\s*\n\s*/g, ' ');
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** Text content for XML: illegal characters removed, `&`, `<`, `>` escaped (so `]]>` cannot appear). */
export function xmlText(text: string): string {
  return text.replace(ANSI, '').replace(XML_ILLEGAL, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An XML attribute value (to be placed in double quotes); whitespace characters kept as references. */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** `12.3 s` (one decimal) from milliseconds. */
export function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/** A short form of a hash: without a `sha512-`/`sha256-` prefix, the first `n` characters. */
export function shortHash(hash: string, n = 12): string {
  return hash.replace(/^sha(?:256|384|512)[-:]/, '').slice(0, n);
}

/** Byte count with a unit, e.g. `12.4 kB (12 700 bytes)`. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  const units = ['kB', 'MB', 'GB'];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'GB'} (${n} bytes)`;
}
