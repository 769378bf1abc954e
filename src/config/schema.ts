// Strict runtime validation of a loaded config; every problem is reported at once as `path: message`.
import { z } from 'zod';
import semver from 'semver';
import { formatLeafIssues } from './issues.js';
import { CLIENT_PACKAGES, DEFAULT_MAJORS, pinMajor } from './majors.js';
import { CHECK_LEVELS, checkIds, type CheckPhase } from '../contract/checks.js';

const stringRecord = z.record(z.string(), z.string());
const expectation = z.union([z.number().int().nonnegative(), z.array(z.string())]);

/** Paths in a step's normalised answer that legitimately vary between runs (answer parity masks them). */
const vary = z.array(z.string().min(1)).optional();

const step = z.union([
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

const serverPhase = {
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  timeoutMs: z.number().int().positive().optional(),
};

const client = z.strictObject({
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
function checkLevels(phase: CheckPhase) {
  const level = z.enum(CHECK_LEVELS as ['require', 'warn', 'off']).optional();
  return z.strictObject(Object.fromEntries(checkIds(phase).map((id) => [id, level])));
}

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, underscore)');
const secret = z.union([
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

const pin = z.string().refine((p) => (PIN_ROLE.test(p) && p !== 'latest') || semver.valid(p) !== null, {
  message: 'must be an exact version (1.24.0), latest@N, floor or floor@N',
});

// The axes: a list replaces the one above it (a cell's own list replaces the top-level one); empty = no axis.
const clients = z.array(pin);
const nodeSpec = z.union([
  z.number().int().positive(),
  z.string().regex(/^\d+(\.\d+\.\d+)?$/, 'a Node major (22) or an exact release (22.11.0)'),
]);
const nodeAxis = z.array(nodeSpec);

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
          install: z.enum(['npm', 'pnpm-strict']).optional(),
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
  .superRefine(
    (cfg, ctx) => {
      // Runs even when other keys are wrong, so that a pin of an unknown major is reported with them.
      const raw = cfg as unknown as { cells?: unknown; majors?: unknown; clients?: unknown; node?: unknown };
      const majors = Object.keys({ ...DEFAULT_MAJORS, ...(isRecord(raw.majors) ? raw.majors : {}) });
      const cells = Array.isArray(raw.cells) ? raw.cells : [];
      cells.forEach((cell: unknown, i) => {
        const pin = isRecord(cell) && typeof cell.pin === 'string' ? cell.pin : undefined;
        const major = pin === undefined ? undefined : pinMajor(pin);
        if (major !== undefined && !majors.includes(major)) {
          ctx.addIssue({
            code: 'custom',
            path: ['cells', i, 'pin'],
            message: `no install recipe for SDK major ${major} (known: ${majors.join(', ')}); pin a version of a known major, or add a recipe under "majors"`,
          });
        }
      });
      const axisLists: [unknown, (string | number)[]][] = [
        [raw.clients, ['clients']],
        [raw.node, ['node']],
        ...cells.flatMap((cell: unknown, i): [unknown, (string | number)[]][] =>
          isRecord(cell)
            ? [
                [cell.clients, ['cells', i, 'clients']],
                [cell.node, ['cells', i, 'node']],
              ]
            : [],
        ),
      ];
      for (const [list, at] of axisLists) {
        if (!Array.isArray(list)) continue;
        const isClients = at.at(-1) === 'clients';
        const seen = new Map<string, number>();
        list.forEach((entry: unknown, j) => {
          if (typeof entry !== 'string' && typeof entry !== 'number') return;
          const key = String(entry);
          const first = seen.get(key);
          if (first !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [...at, j],
              message: `"${key}" is listed twice (also [${first}]): each variant needs a distinct id`,
            });
          else seen.set(key, j);
          const major = isClients && typeof entry === 'string' ? pinMajor(entry) : undefined;
          if (major !== undefined && CLIENT_PACKAGES[major] === undefined)
            ctx.addIssue({
              code: 'custom',
              path: [...at, j],
              message: `no client package for SDK major ${major} (known: ${Object.entries(CLIENT_PACKAGES)
                .map(([m, p]) => `${m} → ${p}`)
                .join(', ')})`,
            });
        });
      }
    },
    { when: () => true },
  )
  .superRefine((cfg, ctx) => {
    const names = new Map<string, number>();
    (cfg.secrets ?? []).forEach((s, i) => {
      const name = typeof s === 'string' ? s : s.name;
      const first = names.get(name);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: ['secrets', i], message: `secret ${name} is listed twice (also [${first}])` });
      else names.set(name, i);
    });
    if (cfg.package && cfg.tarball) {
      ctx.addIssue({ code: 'custom', path: ['tarball'], message: 'give either package or tarball, not both' });
    }
    const seen = new Map<string, number>();
    cfg.cells.forEach((cell, i) => {
      const id = cellIdOf(cell);
      const first = seen.get(id);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['cells', i, 'id'],
          message: `duplicate cell id "${id}" (also cells[${first}]); set a distinct id`,
        });
      } else seen.set(id, i);
    });
  });

/** A cell's id: the one it names, else its pin's; a strict leg's default gains its install (`latest-1-pnpm-strict`). */
export function cellIdOf(cell: { pin: string; id?: string | undefined; install?: string | undefined }): string {
  return cell.id ?? `${cellIdFromPin(cell.pin)}${cell.install && cell.install !== 'npm' ? `-${cell.install}` : ''}`;
}

export function cellIdFromPin(pin: string): string {
  return pin.replace(/@/g, '-');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validate a loaded config: the config, or every leaf problem (see formatLeafIssues). */
export function validateConfig(raw: unknown): { ok: true; config: z.output<typeof configSchema> } | { ok: false; problems: string[] } {
  // The input is kept on issues for did-you-mean on enum values; it is never printed.
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  return parsed.success ? { ok: true, config: parsed.data } : { ok: false, problems: formatLeafIssues(parsed.error, configSchema) };
}
