import { describe, expect, it } from 'vitest';
import { DEFAULT_MAJORS } from '../../src/config/resolve.js';
import { installSetFor } from '../../src/plan/install-set.js';
import { resolvePin } from '../../src/plan/pins.js';
import { fakeRegistry, SDK } from './fake-registry.js';

const ranges = { '@modelcontextprotocol/sdk': '>=1.23.0 <2', '@modelcontextprotocol/server': '>=2.0.0 <3' };

describe('resolvePin', () => {
  const registry = fakeRegistry(SDK);
  it.each([
    ['1.24.0', 1, '1.24.0'],
    ['latest@1', 1, '1.32.2'],
    ['latest@2', 2, '2.4.0'],
    ['floor', 1, '1.23.0'],
    ['floor@1', 1, '1.23.0'],
    ['floor@2', 2, '2.0.0'],
  ])('%s → major %i, %s', async (pin, major, version) => {
    const r = await resolvePin(pin, DEFAULT_MAJORS, registry, ranges);
    expect(r).toEqual({ ok: true, value: expect.objectContaining({ major, version }) });
  });

  it('refuses a version that does not exist, naming the newest of its major', async () => {
    const r = await resolvePin('1.99.0', DEFAULT_MAJORS, registry, ranges);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.message).toBe(
        'pin 1.99.0: @modelcontextprotocol/sdk@1.99.0 does not exist on the registry (the newest 1.x is 1.32.2); use a published version or latest@1',
      );
  });

  it('refuses a major without a recipe', async () => {
    const r = await resolvePin('3.0.0', DEFAULT_MAJORS, registry, ranges);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/no install recipe for SDK major 3/);
  });

  it('refuses floor@N without a declared range', async () => {
    const r = await resolvePin('floor@2', DEFAULT_MAJORS, registry, { '@modelcontextprotocol/sdk': '^1.23.0' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/declares no range on @modelcontextprotocol\/server/);
  });
});

describe('installSetFor', () => {
  const registry = fakeRegistry(SDK);
  it.each([
    ['2.0.0', '2.0.0'],
    ['2.2.0', '2.1.0'],
    ['2.3.1', '2.1.1'],
    ['2.4.0', '2.1.2'],
  ])('server %s gets the newest node adapter whose peer range admits it (%s)', async (server, node) => {
    const r = await installSetFor(server, DEFAULT_MAJORS['2']!, registry);
    expect(r).toEqual({
      ok: true,
      value: { '@modelcontextprotocol/server': server, '@modelcontextprotocol/client': server, '@modelcontextprotocol/node': node },
    });
  });

  it('a 1.x pin installs only the sdk', async () => {
    expect(await installSetFor('1.24.0', DEFAULT_MAJORS['1']!, registry)).toEqual({
      ok: true,
      value: { '@modelcontextprotocol/sdk': '1.24.0' },
    });
  });

  it('fails clearly when no companion admits the pin', async () => {
    const r = await installSetFor('3.0.0', DEFAULT_MAJORS['2']!, registry);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/no published @modelcontextprotocol\/node .* admits 3\.0\.0/);
  });
});
