// The config schema's leaf shapes (steps, pins, axes, secrets, check levels), assembled by schema.ts; apart so
// the top-level shape reads as the list of keys a config has.
import { z } from 'zod';
import semver from 'semver';
import { CHECK_LEVELS, checkIds, type CheckPhase } from '../contract/checks.js';

export const stringRecord = z.record(z.string(), z.string());
export const expectation = z.union([z.number().int().nonnegative(), z.array(z.string())]);

/** Paths in a step's normalised answer that legitimately vary between runs (answer parity masks them). */
const vary = z.array(z.string().min(1)).optional();

export const step = z.union([
  z.strictObject({
    tool: z.string().min(1),
    vary,
    arguments: z.record(z.string(), z.unknown()).optional(),
    slow: z.boolean().optional(),
    sideEffects: z.boolean().optional(),
    expect: z
      .strictObject({
        isError: z.boolean().optional(),
        text: z.string().optional(),
        structuredContent: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  }),
  z.strictObject({ resource: z.string().min(1), vary, expect: z.strictObject({ text: z.string().optional() }).optional() }),
  z.strictObject({
    prompt: z.string().min(1),
    vary,
    arguments: stringRecord.optional(),
    expect: z.strictObject({ messages: z.number().int().nonnegative().optional(), text: z.string().optional() }).optional(),
  }),
]);

export const serverPhase = {
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  timeoutMs: z.number().int().positive().optional(),
};

export const client = z.strictObject({
  capabilities: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  roots: z
    .array(
      z.strictObject({
        uri: z.string().startsWith('file://', { message: 'a root is a file:// URI (the MCP spec allows no other scheme)' }),
        name: z.string().optional(),
      }),
    )
    .optional(),
  noArguments: z.enum(['empty', 'omit']).optional(),
});

/** `<phase>.checks`: a level per known sub-check (src/contract/checks.ts); unknown names and levels list the valid ones. */
export function checkLevels(phase: CheckPhase) {
  const level = z.enum(CHECK_LEVELS as ['require', 'warn', 'off']).optional();
  return z.strictObject(Object.fromEntries(checkIds(phase).map((id) => [id, level])));
}

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, underscore)');
export const secret = z.union([
  envName,
  z.strictObject({
    name: envName,
    phases: z
      .array(z.enum(['stdio', 'http', 'bind', 'conformance', 'leaks']))
      .min(1)
      .optional(),
    whenAbsent: z.enum(['not-measured', 'skipped']).optional(),
  }),
]);

const PIN_ROLE = /^(latest|floor)(@\d+)?$/;

export const pin = z.string().refine((p) => (PIN_ROLE.test(p) && p !== 'latest') || semver.valid(p) !== null, {
  message: 'must be an exact version (1.24.0), latest@N, floor or floor@N',
});

// The axes: a list replaces the one above it (a cell's own list replaces the top-level one); empty = no axis.
export const clients = z.array(pin);
const nodeSpec = z.union([
  z.number().int().positive(),
  z.string().regex(/^\d+(\.\d+\.\d+)?$/, 'a Node major (22) or an exact release (22.11.0)'),
]);
export const nodeAxis = z.array(nodeSpec);
