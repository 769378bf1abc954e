// The reuse window for the plan's registry look-ups (issue 34): a look-up kept less than the window ago is reused
// and said with its age; after the window, in another npm context, or from the future, the registry is asked again,
// so a release published after the window is planned at once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withinWindow, type LookupStore, type PackageMeta } from '../../src/plan/registry.js';
import { ok, type Result } from '../../src/util/result.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('withinWindow', () => {
  it('reuses a look-up inside the window only, and a release published after it is seen', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-lookups-'));
    dirs.push(dir);
    const t0 = Date.parse('2026-12-05T12:00:00Z');
    // The registry stand-in: what it has published so far, and how often it was asked.
    const versions: PackageMeta['versions'] = new Map([['1.0.0', { peerDependencies: {}, dependencies: { zod: '^4' } }]]);
    let asked = 0;
    const fetch = async (): Promise<Result<PackageMeta>> => (asked++, ok({ name: 'sdk', versions: new Map(versions) }));
    const reused: { ageMs: number }[] = [];
    const at = (minutes: number, context = 'npm a'): LookupStore => ({ dir, ms: 600_000, context, now: () => t0 + minutes * 60_000 });
    const look = async (store: LookupStore) => {
      const r = await withinWindow(store, 'sdk', fetch, (x) => reused.push(x));
      return r.ok ? [...r.value.versions.keys()] : [];
    };

    expect(await look(at(0))).toEqual(['1.0.0']);
    expect(asked).toBe(1);
    versions.set('1.1.0', { peerDependencies: {}, dependencies: {} });
    // Within the window: the kept answer, with its age; its versions' fields as the registry gave them.
    expect(await look(at(4))).toEqual(['1.0.0']);
    expect(asked).toBe(1);
    expect(reused).toEqual([{ name: 'sdk', lookedUpAt: new Date(t0).toISOString(), ageMs: 240_000 }]);
    const kept = await withinWindow(at(5), 'sdk', fetch, () => undefined);
    expect(kept.ok && kept.value.versions.get('1.0.0')).toEqual({ peerDependencies: {}, dependencies: { zod: '^4' } });
    // Another npm configuration (registry, auth): asked.
    expect(await look(at(5, 'npm b'))).toEqual(['1.0.0', '1.1.0']);
    expect(asked).toBe(2);
    // After the window: asked, and the new release is there.
    expect(await look(at(10))).toEqual(['1.0.0', '1.1.0']);
    expect(asked).toBe(3);
    // A kept answer from the future (a clock set back) is not trusted; an unreadable one neither.
    expect(await look(at(-1))).toEqual(['1.0.0', '1.1.0']);
    expect(asked).toBe(4);
    const files = (await import('node:fs')).readdirSync(dir).filter((f) => f.endsWith('.json'));
    for (const f of files) await writeFile(path.join(dir, f), 'not json');
    expect(await look(at(-1))).toEqual(['1.0.0', '1.1.0']);
    expect(asked).toBe(5);
  });
});
