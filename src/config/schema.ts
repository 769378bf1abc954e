// Strict runtime validation of a loaded config; every problem is reported at once as `path: message`.
import { z } from 'zod';
import { formatLeafIssues } from './issues.js';
import { checkLevels, client, clients, expectation, nodeAxis, pin, secret, serverPhase, step, stringRecord } from './schema-parts.js';
import { axisIssues, uniquenessIssues } from './schema-rules.js';

export const configSchema = z
  .strictObject({
    package: z.string().min(1).optional(),
    tarball: z.string().min(1).optional(),
    bin: z.string().min(1).optional(),
    cells: z
      .array(
        z.strictObject({
          pin,
          role: z.string().optional(),
          id: z
            .string()
            .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, dot, dash and underscore')
            .optional(),
          allowedToFail: z.boolean().optional(),
          clients: clients.optional(),
          node: nodeAxis.optional(),
          install: z.enum(['npm', 'pnpm-strict', 'yarn-pnp']).optional(),
        }),
      )
      .min(1, 'declare at least one cell'),
    clients: clients.optional(),
    node: nodeAxis.optional(),
    majors: z
      .record(
        z.string().regex(/^\d+$/, 'a major number'),
        z.strictObject({
          pinned: z.array(z.string().min(1)).min(1),
          companions: z.array(z.strictObject({ name: z.string().min(1), peerOf: z.string().min(1) })).optional(),
        }),
      )
      .optional(),
    env: stringRecord.optional(),
    stdio: z
      .union([
        z.literal(false),
        z.strictObject({
          ...serverPhase,
          expect: z
            .strictObject({
              tools: expectation.optional(),
              resources: expectation.optional(),
              resourceTemplates: expectation.optional(),
              prompts: expectation.optional(),
            })
            .optional(),
          steps: z.array(step).optional(),
          checks: checkLevels('stdio').optional(),
        }),
      ])
      .optional(),
    http: z
      .union([
        z.literal(false),
        z
          .strictObject({
            ...serverPhase,
            path: z.string().startsWith('/').optional(),
            host: z
              .string()
              .refine((h) => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(h), {
                message: 'must be a loopback host (127.0.0.1, ::1 or localhost): the http phase runs with a token on loopback',
              })
              .optional(),
            readyTimeoutMs: z.number().int().positive().optional(),
            auth: z.enum(['bearer', 'none', 'oauth']).optional(),
            oauth: z
              .strictObject({
                audience: z.string().min(1).optional(),
                scopes: z
                  .array(
                    z
                      .string()
                      .regex(
                        /^[\x21\x23-\x5B\x5D-\x7E]+$/,
                        'a scope is visible ASCII without spaces, quotes or backslashes (RFC 6749 §3.3)',
                      ),
                  )
                  .optional(),
              })
              .optional(),
            checks: checkLevels('http').optional(),
          })
          .refine((h) => h.oauth === undefined || h.auth === 'oauth', {
            message: "http.oauth applies only with auth: 'oauth'",
            path: ['oauth'],
          }),
      ])
      .optional(),
    bind: z.union([z.literal(false), z.strictObject({ ...serverPhase, dropEnv: z.array(z.string()).optional() })]).optional(),
    leaks: z
      .union([
        z.literal(false),
        z.strictObject({ graceMs: z.number().int().positive().optional(), checks: checkLevels('leaks').optional() }),
      ])
      .optional(),
    conformance: z.union([z.literal(false), z.strictObject({ timeoutMs: z.number().int().positive().optional() })]).optional(),
    environment: z.strictObject({ checks: checkLevels('environment').optional() }).optional(),
    install: z
      .strictObject({
        attempts: z.number().int().min(1).max(10).optional(),
        timeoutMs: z.number().int().positive().optional(),
        reuse: z.boolean().optional(),
        reuseWindowMs: z.number().int().min(0).optional(),
      })
      .optional(),
    lockstep: z.enum(['error', 'warn', 'off']).optional(),
    sideBySide: z.boolean().optional(),
    client: client.optional(),
    surface: z
      .union([
        z.literal(false),
        z.strictObject({
          allow: z.array(z.strictObject({ item: z.string().min(1), path: z.string().min(1).optional() })).optional(),
        }),
      ])
      .optional(),
    secrets: z.array(secret).optional(),
    secretsOnFork: z.enum(['not-measured', 'fail']).optional(),
    parity: z
      .union([
        z.literal(false),
        z.strictObject({
          allow: z
            .array(z.strictObject({ item: z.string().min(1), path: z.string().min(1).optional(), reason: z.string().min(1) }))
            .optional(),
        }),
      ])
      .optional(),
  })
  // The first runs even when other keys are wrong, so that a pin of an unknown major is reported with them.
  .superRefine(axisIssues, { when: () => true })
  .superRefine(uniquenessIssues);

/** Validate a loaded config: the config, or every leaf problem (see formatLeafIssues). */
export function validateConfig(raw: unknown): { ok: true; config: z.output<typeof configSchema> } | { ok: false; problems: string[] } {
  // The input is kept on issues for did-you-mean on enum values; it is never printed.
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  return parsed.success ? { ok: true, config: parsed.data } : { ok: false, problems: formatLeafIssues(parsed.error, configSchema) };
}
