import type { PackageMeta, Registry } from '../../src/plan/registry.js';
import { fail, ok } from '../../src/util/result.js';

/**
 * An in-memory registry for unit tests of pin resolution (real resolution is covered end to end): package →
 * version → peerDependencies; `dependencies` the same shape, for the versions that have any.
 */
export function fakeRegistry(
  packages: Record<string, Record<string, Record<string, string>>>,
  dependencies: Record<string, Record<string, Record<string, string>>> = {},
): Registry {
  let lookups = 0;
  return {
    url: async () => 'https://registry.test/',
    cancel: () => undefined,
    get lookups() {
      return lookups;
    },
    async meta(name) {
      lookups++;
      const versions = packages[name];
      if (!versions) return fail('usage', `${name} does not exist`);
      const meta: PackageMeta = {
        name,
        versions: new Map(
          Object.entries(versions).map(([v, peers]) => {
            const deps = dependencies[name]?.[v];
            return [v, { peerDependencies: peers, ...(deps ? { dependencies: deps } : {}) }];
          }),
        ),
      };
      return ok(meta);
    },
  };
}

export const SDK = {
  '@modelcontextprotocol/sdk': { '1.22.0': {}, '1.23.0': {}, '1.24.0': {}, '1.32.2': {}, '1.33.0-beta.1': {} },
  '@modelcontextprotocol/server': { '2.0.0': {}, '2.2.0': {}, '2.3.1': {}, '2.4.0': {} },
  '@modelcontextprotocol/node': {
    '2.0.0': { '@modelcontextprotocol/server': '^2.0.0' },
    '2.1.0': { '@modelcontextprotocol/server': '^2.1.0' },
    '2.1.1': { '@modelcontextprotocol/server': '^2.3.0' },
    '2.1.2': { '@modelcontextprotocol/server': '^2.4.0' },
  },
};
