import { describe, expect, it } from 'vitest';
import { describeListen, listenAddress, listenScope, type ClassifiedListen } from '../../src/driver/listen-watch.js';

describe('listenScope: who can reach a listen', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'wildcard'],
    ['::', 'wildcard'],
    ['0:0:0:0:0:0:0:0', 'wildcard'],
    ['[::]', 'wildcard'],
    ['192.168.1.20', 'routable'],
    ['10.0.0.1', 'routable'],
    ['fe80::1%eth0', 'routable'],
    ['::ffff:10.0.0.1', 'routable'],
    ['128.0.0.1', 'routable'],
  ] as const)('%s is %s', (address, scope) => {
    expect(listenScope(address)).toBe(scope);
  });
});

describe('describeListen', () => {
  const l = (address: string): ClassifiedListen => ({ address, port: 80, source: 'probe', scope: listenScope(address) });
  it('names the socket and what it exposes', () => {
    expect(describeListen(l('::'))).toBe('[::]:80 (IPv6 wildcard: every interface)');
    expect(describeListen(l('0.0.0.0'))).toBe('0.0.0.0:80 (IPv4 wildcard: every interface)');
    expect(describeListen(l('10.1.2.3'))).toBe('10.1.2.3:80 (a non-loopback address)');
    expect(listenAddress(l('127.0.0.1'))).toBe('127.0.0.1:80');
  });
});
