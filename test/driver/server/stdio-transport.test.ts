import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineSplitter, parseLine, PipeTransport } from '../../../src/driver/server/stdio-transport.js';

describe('parseLine', () => {
  it('accepts JSON-RPC 2.0 objects only', () => {
    expect(parseLine('{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(parseLine('hello')).toBeNull();
    expect(parseLine('{"id":1}')).toBeNull();
    expect(parseLine('[{"jsonrpc":"2.0"}]')).toBeNull();
    expect(parseLine('42')).toBeNull();
  });
});

describe('LineSplitter', () => {
  it('joins chunks, splits on newlines, strips CR and skips blank lines', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push('{"a":');
    s.push('1}\r\n\n{"b"');
    s.push(Buffer.from(':2}\nlast'));
    s.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', 'last']);
  });

  it('decodes multi-byte characters split across chunks', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    const bytes = Buffer.from('é\n');
    s.push(bytes.subarray(0, 1));
    s.push(bytes.subarray(1));
    expect(lines).toEqual(['é']);
  });

  it('bounds a line that never ends', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 1000);
    for (let i = 0; i < 100; i++) s.push('x'.repeat(100));
    s.push('tail\n{"ok":1}\n');
    expect(lines.length).toBe(2);
    expect(lines[0]).toBe('x'.repeat(300));
    expect(lines[1]).toBe('{"ok":1}');
  });
});

describe('PipeTransport', () => {
  function pair() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const noise: string[] = [];
    const t = new PipeTransport(stdin, stdout, { onNoise: (l) => noise.push(l) });
    return { stdin, stdout, noise, t };
  }

  it('frames outgoing messages as one JSON line each', async () => {
    const { stdin, t } = pair();
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(stdin.read()?.toString()).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  });

  it('delivers JSON-RPC lines, records the rest as noise, and captures the initialize result', async () => {
    const { stdout, noise, t } = pair();
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 7, method: 'initialize', params: {} });
    stdout.write('server starting...\n');
    stdout.write(
      '{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}\n',
    );
    await new Promise((r) => setImmediate(r));
    expect(noise).toEqual(['server starting...']);
    expect(got).toHaveLength(1);
    expect(t.initializeResult).toEqual({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } });
  });

  it('close() only ends stdin, and onclose fires once', async () => {
    const { stdin, stdout, t } = pair();
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    await t.close();
    expect(stdin.writableEnded).toBe(true);
    stdout.end();
    await new Promise((r) => setImmediate(r));
    expect(closes).toBe(1);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('transport closed');
  });

  it('cut off: the pipe closed under a request with no answer (a cancelled one expects none), or a write failed', async () => {
    const answered = pair();
    await answered.t.start();
    await answered.t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await answered.t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} });
    await answered.t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    answered.stdout.end('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}\n');
    await new Promise((r) => setImmediate(r));
    expect(answered.t.cutOff).toBe(false);

    const unanswered = pair();
    await unanswered.t.start();
    await unanswered.t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    unanswered.stdout.end();
    await new Promise((r) => setImmediate(r));
    expect(unanswered.t.cutOff).toBe(true);

    const broken = pair();
    await broken.t.start();
    broken.stdin.destroy();
    await expect(broken.t.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow();
    expect(broken.t.cutOff).toBe(true);
  });
});
