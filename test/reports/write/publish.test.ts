import { describe, expect, test } from 'vitest';
import { BEGIN_MARKER, END_MARKER, publishInto } from '../../../src/reports/index.js';

const TABLE = '| a | b |\n|---|---|\n| 1 | 2 |';
const doc = (inner: string): string => `# Readme\n\nIntro.\n\n${BEGIN_MARKER}\n${inner}\n${END_MARKER}\n\nOutro.\n`;

describe('publishInto', () => {
  test('replaces the content between the markers and nothing else', () => {
    const result = publishInto(doc('old table\nmore old'), TABLE);
    expect(result).toEqual({ ok: true, text: doc(TABLE) });
  });

  test('is idempotent', () => {
    const once = publishInto(doc(''), TABLE);
    if (!once.ok) throw new Error(once.error);
    expect(publishInto(once.text, TABLE)).toEqual(once);
  });

  test('keeps CRLF line endings', () => {
    const crlf = doc('old').replace(/\n/g, '\r\n');
    const result = publishInto(crlf, TABLE);
    expect(result).toEqual({ ok: true, text: doc(TABLE).replace(/\n/g, '\r\n') });
  });

  test('missing markers', () => {
    const none = publishInto('# Readme\n', TABLE);
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error).toMatch(/no mcp-matrix markers found.*Put the two lines/);
    const noEnd = publishInto(`a\n${BEGIN_MARKER}\nb\n`, TABLE);
    expect(noEnd).toMatchObject({ ok: false, error: expect.stringMatching(/mcp-matrix:end --> is missing \(found .* on line 2\)/) });
    const noBegin = publishInto(`a\n${END_MARKER}\n`, TABLE);
    expect(noBegin).toMatchObject({ ok: false, error: expect.stringMatching(/mcp-matrix:begin --> is missing/) });
  });

  test('duplicated markers name the lines', () => {
    const twice = publishInto(`${doc('x')}${BEGIN_MARKER}\n`, TABLE);
    expect(twice).toMatchObject({ ok: false, error: expect.stringMatching(/appears 2 times \(lines 5, 10\)/) });
  });

  test('markers out of order', () => {
    const reversed = publishInto(`${END_MARKER}\nx\n${BEGIN_MARKER}\n`, TABLE);
    expect(reversed).toMatchObject({ ok: false, error: expect.stringMatching(/\(line 1\) comes before .* \(line 3\)/) });
  });

  test('markers inside fenced code blocks or inline are documentation, not markers', () => {
    const documented = `Use:\n\n\`\`\`md\n${BEGIN_MARKER}\n${END_MARKER}\n\`\`\`\n\nInline \`${BEGIN_MARKER}\` too.\n\n${doc('old')}`;
    const result = publishInto(documented, TABLE);
    expect(result).toEqual({
      ok: true,
      text: `Use:\n\n\`\`\`md\n${BEGIN_MARKER}\n${END_MARKER}\n\`\`\`\n\nInline \`${BEGIN_MARKER}\` too.\n\n${doc(TABLE)}`,
    });
  });

  test('refuses a table that contains a marker', () => {
    expect(publishInto(doc(''), `x\n${END_MARKER}`).ok).toBe(false);
  });
});
