import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC, referenceGaps, renderConfigDocs } from '../../src/config/docs.js';
import { configSchema } from '../../src/config/schema.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('docs/config.md', () => {
  it('describes every key of the schema, and nothing else', () => {
    expect(referenceGaps()).toEqual({ undocumented: [], unknown: [] });
  });

  it('is exactly what the schema renders (run `npm run docs:config` after changing the schema)', async () => {
    const onDisk = await readFile(path.join(ROOT, CONFIG_DOC), 'utf8');
    expect(onDisk).toBe(renderConfigDocs());
  });

  it('drifts when a key is added to the schema: the key is undocumented and the page changes', () => {
    const grown = configSchema.extend({ colour: z.string().optional() });
    expect(referenceGaps(grown).undocumented).toEqual(['colour']);
    expect(renderConfigDocs(grown)).not.toBe(renderConfigDocs());
    expect(renderConfigDocs(grown)).toContain('| `colour` | string | UNDOCUMENTED |');
  });

  it('lists nested keys with their types and whether they are required', () => {
    const doc = renderConfigDocs();
    expect(doc).toContain('| `cells[].pin` (required) | string |');
    expect(doc).toContain('| `stdio.expect.tools` | integer ≥ 0 or list of string |');
    expect(doc).toContain('| `stdio.steps[] (prompt).expect.messages` | integer ≥ 0 |');
    expect(doc).toContain("| `lockstep` | 'error' \\| 'warn' \\| 'off' |");
  });
});
