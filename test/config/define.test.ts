// The hand-written config types (define.ts: what an editor shows) and the schema (what is validated) are one
// contract: `npm run typecheck` fails when a key exists on one side only or has another type.
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { configSchema } from '../../src/config/schema.js';

type Schema = z.input<typeof configSchema>;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same: Same<Schema, MatrixConfig> = true;

describe('define.ts and the schema', () => {
  it('describe the same config (checked by the type checker)', () => {
    expect(same).toBe(true);
  });
});
