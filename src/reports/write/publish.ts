// Publishes the table into a document (README, docs page) between two marker lines, leaving
// everything else byte for byte. Markers inside fenced code blocks (documentation about the
// markers) are ignored; a marker must stand on a line of its own.

export const BEGIN_MARKER = '<!-- mcp-matrix:begin -->';
export const END_MARKER = '<!-- mcp-matrix:end -->';

export type PublishResult = { ok: true; text: string } | { ok: false; error: string };

const HOW = `Put the two lines ${BEGIN_MARKER} and ${END_MARKER} (each on a line of its own, begin first) where the table should go.`;

interface Marker {
  kind: 'begin' | 'end';
  line: number;
  /** Offsets of the marker line in the document, line break excluded. */
  start: number;
  end: number;
}

function findMarkers(doc: string): Marker[] {
  const markers: Marker[] = [];
  let fence: { char: string; length: number } | undefined;
  let offset = 0;
  const lines = doc.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    const trimmed = line.trim();
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = open?.[1];
      if (close && close[0] === fence.char && close.length >= fence.length && line.trim() === close) fence = undefined;
    } else if (open?.[1]) {
      fence = { char: open[1][0] ?? '`', length: open[1].length };
    } else if (/^<!--\s*mcp-matrix:(begin|end)\s*-->$/.test(trimmed)) {
      const kind = trimmed.includes('begin') ? 'begin' : 'end';
      markers.push({ kind, line: index + 1, start: offset, end: offset + line.length });
    }
    offset += raw.length + 1;
  });
  return markers;
}

/**
 * Replaces what lies between the begin and end markers with `table`. Idempotent: publishing the
 * same table twice gives the same document. Keeps the document's line endings (LF or CRLF).
 */
export function publishInto(doc: string, table: string): PublishResult {
  const markers = findMarkers(doc);
  const begins = markers.filter((m) => m.kind === 'begin');
  const ends = markers.filter((m) => m.kind === 'end');
  const lines = (ms: Marker[]): string => ms.map((m) => m.line).join(', ');
  if (begins.length === 0 && ends.length === 0) {
    return { ok: false, error: `no mcp-matrix markers found in the document. ${HOW}` };
  }
  if (begins.length === 0) return { ok: false, error: `${BEGIN_MARKER} is missing (found ${END_MARKER} on line ${lines(ends)}). ${HOW}` };
  if (ends.length === 0) return { ok: false, error: `${END_MARKER} is missing (found ${BEGIN_MARKER} on line ${lines(begins)}). ${HOW}` };
  if (begins.length > 1)
    return { ok: false, error: `${BEGIN_MARKER} appears ${begins.length} times (lines ${lines(begins)}); keep exactly one pair. ${HOW}` };
  if (ends.length > 1)
    return { ok: false, error: `${END_MARKER} appears ${ends.length} times (lines ${lines(ends)}); keep exactly one pair. ${HOW}` };
  const [begin] = begins as [Marker];
  const [end] = ends as [Marker];
  if (end.line < begin.line) {
    return { ok: false, error: `${END_MARKER} (line ${end.line}) comes before ${BEGIN_MARKER} (line ${begin.line}). ${HOW}` };
  }
  if (/<!--\s*mcp-matrix:(begin|end)\s*-->/.test(table)) {
    return { ok: false, error: 'the table to publish itself contains an mcp-matrix marker; refusing to publish it.' };
  }
  const eol = doc.includes('\r\n') ? '\r\n' : '\n';
  const body = table
    .replace(/\r\n/g, '\n')
    .replace(/^\n+|\n+$/g, '')
    .split('\n')
    .join(eol);
  const text = `${doc.slice(0, begin.end)}${eol}${body}${eol}${doc.slice(end.start)}`;
  return { ok: true, text };
}
