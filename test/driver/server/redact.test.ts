import { describe, expect, it } from 'vitest';
import { MASK, PIECE, Redactor, secretForms, type Cut } from '../../../src/driver/server/redact.js';
import { NoiseLog, TailBuffer } from '../../../src/driver/server/output.js';

describe('Redactor', () => {
  const token = 'a'.repeat(16) + '0123456789abcdef0123456789abcdef';

  it('masks every occurrence in strings, nested values and keys', () => {
    const r = new Redactor();
    r.add(token);
    const message = {
      type: 'phase-result',
      result: {
        message: `Bearer ${token} refused`,
        stderrTail: `token=${token}\nagain ${token}`,
        details: { [token]: [token, 1, null, true] },
      },
    };
    const out = r.deep(message);
    expect(JSON.stringify(out)).not.toContain(token);
    expect(out.result.message).toBe('Bearer *** refused');
    expect(out.result.stderrTail).toBe('token=***\nagain ***');
    expect(out.result.details).toEqual({ '***': ['***', 1, null, true] });
    expect(message.result.message).toContain(token);
  });

  it('ignores secrets too short to be tokens and survives cycles', () => {
    const r = new Redactor();
    r.add('ab');
    const cyclic: Record<string, unknown> = { a: 'ab' };
    cyclic.self = cyclic;
    expect(r.deep(cyclic)).toEqual({ a: 'ab', self: '[Circular]' });
  });

  const hex = '3f9c2a7be41d08c65f0a9e3b7d2c4f1a8e6b0d5c9f2a7e14';
  const masked = () => {
    const r = new Redactor();
    r.add(hex);
    return r;
  };

  it.each([
    ['upper case', hex.toUpperCase()],
    ['base64', Buffer.from(hex).toString('base64')],
    ['base64 inside a longer encoded text', Buffer.from(`Bearer ${hex}`).toString('base64')],
    ['base64url', Buffer.from(`x:${hex}`).toString('base64url')],
    ['URL-encoded base64', encodeURIComponent(Buffer.from(`ab${hex}`).toString('base64'))],
    ['a 12-character piece', hex.slice(17, 29)],
    ['its first 20 characters', hex.slice(0, 20)],
  ])('masks the %s form', (_name, form) => {
    const out = masked().text(`before ${form} after`);
    for (let i = 0; i + PIECE <= hex.length; i++) expect(out.toLowerCase()).not.toContain(hex.slice(i, i + PIECE));
    expect(out).toContain(MASK);
    expect(out.startsWith('before ')).toBe(true);
  });

  it('leaves text without a secret alone, and shorter pieces of hex that are not the token', () => {
    const r = masked();
    expect(r.text('ordinary text 3f9c2a7b and 0123456789abcdef')).toBe('ordinary text 3f9c2a7b and 0123456789abcdef');
  });

  it('masks before cutting: a token straddling a 300-character cut leaves no piece', () => {
    const r = masked();
    const line = `${'x'.repeat(280)}${hex} tail`;
    expect(r.clip(line, 300)).toBe(`${'x'.repeat(280)}*** tail`);
    const noise = new NoiseLog(20, 300, (t, max, cut) => r.clip(t, max, cut));
    noise.push(line);
    expect(noise.lines).toEqual([`${'x'.repeat(280)}*** tail`]);
    // Cutting first would have cut through the token, keeping its first 20 characters.
    expect(line.slice(0, 300).endsWith(hex.slice(0, 20))).toBe(true);
  });

  it('a line cut by someone else loses the piece at its cut edge too', () => {
    const r = masked();
    expect(r.clip(`${'y'.repeat(20)}${hex.slice(0, 8)}`, 300, { after: true })).toBe('y'.repeat(17));
    expect(r.clip(`${hex.slice(-8)}${'z'.repeat(20)}`, 300, { before: true })).toBe('z'.repeat(17));
  });

  it('a stderr window that starts inside the token shows no piece of it', () => {
    const r = masked();
    const clip = (t: string, max: number, cut?: Cut) => r.clip(t, max, cut);
    // The 19-character window starts with the token's last 8 characters: too short to recognise.
    const short = new TailBuffer(19, clip);
    short.push(`start ${hex}\nnext line\n`);
    expect(short.tail()).toBe('next line');
    // The 40-character window starts with its last 29: recognised and masked.
    const long = new TailBuffer(40, clip);
    long.push(`start ${hex}\nnext line\n`);
    expect(long.tail()).toBe('***\nnext line');
  });
});

describe('secretForms', () => {
  it('the secret, its URL encoding, and the stable base64/base64url/URL-encoded middle at each byte alignment', () => {
    expect(secretForms('abcdefghijklmnop')).toEqual([
      'abcdefghijklmnop',
      'YWJjZGVmZ2hpamtsbW5vc',
      'FiY2RlZmdoaWprbG1ub3',
      'hYmNkZWZnaGlqa2xtbm9w',
    ]);
    expect(secretForms('a?b/c>d~e?f/g>h~')).toEqual([
      'a?b/c>d~e?f/g>h~',
      'a%3Fb%2Fc%3Ed~e%3Ff%2Fg%3Eh~',
      'YT9iL2M+ZH5lP2YvZz5of',
      'YT9iL2M-ZH5lP2YvZz5of',
      'YT9iL2M%2BZH5lP2YvZz5of',
      'E/Yi9jPmR+ZT9mL2c+aH',
      'E_Yi9jPmR-ZT9mL2c-aH',
      'E%2FYi9jPmR%2BZT9mL2c%2BaH',
      'hP2IvYz5kfmU/Zi9nPmh+',
      'hP2IvYz5kfmU_Zi9nPmh-',
      'hP2IvYz5kfmU%2FZi9nPmh%2B',
    ]);
  });

  it('each base64 form appears in the encoding of any text holding the secret at its alignment', () => {
    const secret = 'a?b/c>d~e?f/g>h~';
    const forms = secretForms(secret);
    for (const prefix of ['', 'x', 'xy', 'Bearer ', 'token=']) {
      const b64 = Buffer.from(`${prefix}${secret}!`).toString('base64');
      const url = Buffer.from(`${prefix}${secret}!`).toString('base64url');
      expect(forms.some((f) => b64.includes(f))).toBe(true);
      expect(forms.some((f) => url.includes(f))).toBe(true);
    }
  });

  it('a base64 middle of exactly a piece (12 characters) is a form', () => {
    expect(secretForms('123456789')).toEqual(['123456789', 'MTIzNDU2Nzg5']);
  });

  it('a secret whose base64 middle is shorter than a piece has no base64 forms', () => {
    expect(secretForms('12345678')).toEqual(['12345678']);
  });
});

describe('Redactor: short secrets, edges, and no secrets', () => {
  it('a secret of 8 to 11 characters is masked whole, in any case, regex characters taken literally', () => {
    const r = new Redactor();
    r.add('pa$$w0rd');
    r.add('s3cret.x1');
    expect(r.text('user pa$$w0rd, PA$$W0RD and S3CRET.X1')).toBe('user ***, *** and ***');
    expect(r.text('s3cretAx1 is not it, nor pa$$w0r')).toBe('s3cretAx1 is not it, nor pa$$w0r');
    expect(r.text('Stryker was here')).toBe('Stryker was here');
  });

  it('a piece of the token at the very end of a text is masked', () => {
    // No 12-character piece repeats inside this token, so its last piece is found only as the last piece.
    const token = 'k3v9q2x7m1p8z4w6r5t0yb2n8c4d6f1g7h3j9l5s0a2e4u6i8o';
    const r = new Redactor();
    r.add(token);
    expect(r.text(`tail ${token.slice(-PIECE)}`)).toBe(`tail ${MASK}`);
    expect(r.text(token.slice(-PIECE))).toBe(MASK);
  });

  it('without secrets, clip only cuts: no edge is dropped', () => {
    const r = new Redactor();
    expect(r.clip('abcdefghijklmnopqrstuvwxyz', 100, { before: true, after: true })).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(r.clip('abcdef', 3)).toBe('abc…');
    expect(r.clip('abc', 3)).toBe('abc');
  });
});
