// Every tool's input and output schema must be valid JSON Schema: a client validates arguments and
// results with them. The driver recorded them (normalised, `$schema` dropped) in the stdio details;
// a schema that neither draft-07 nor draft 2020-12 accepts fails the stdio phase, naming the tool.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { PhaseResult } from '../results/types.js';

const SCHEMA_FIELDS = ['inputSchema', 'outputSchema'] as const;

/** The stdio result, failed when a recorded tool schema is not valid JSON Schema; any other result as is. */
export function checkToolSchemas(result: PhaseResult): PhaseResult {
  if (result.phase !== 'stdio' || result.verdict !== 'passed') return result;
  const parity = result.details?.parity;
  if (!isRecord(parity)) return result;
  const problems: string[] = [];
  for (const [item, entry] of Object.entries(parity)) {
    if (!item.startsWith('tool ') || !isRecord(entry)) continue;
    for (const field of SCHEMA_FIELDS) {
      const schema = entry[field];
      // A field too large to keep was replaced by its hash: nothing to compile.
      if (schema === undefined || (isRecord(schema) && '$truncated' in schema)) continue;
      const problem = schemaProblem(schema);
      if (problem) problems.push(`${item}: ${field} is not valid JSON Schema: ${problem}`);
    }
  }
  if (problems.length === 0) return result;
  return { ...result, verdict: 'failed', step: 'validate tool schemas', message: problems.join('; ') };
}

/**
 * Verdicts by schema text: every variant of every cell lists the same few schemas (16 variants of the
 * reference server: 112 schemas, 6 distinct), and each check builds two Ajv instances on the
 * orchestrator's thread. The verdict is a function of the text alone, so each text is compiled once.
 */
const checked = new Map<string, string | undefined>();
const CHECKED_MAX = 2000;

function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'boolean' && !isRecord(schema)) return `expected an object, got ${JSON.stringify(schema)}`;
  const key = JSON.stringify(schema);
  if (checked.has(key)) return checked.get(key);
  const problem = compileProblem(schema);
  if (checked.size >= CHECKED_MAX) checked.clear();
  checked.set(key, problem);
  return problem;
}

/**
 * One Ajv of each draft for the process, emptied after every compile (`removeSchema()` keeps only the
 * meta-schemas), so each schema meets a fresh instance as far as `$id`s go (a schema's own `$id` must not
 * meet another's) while the meta-schema's validator is compiled once, not twice per schema (~30 ms each).
 */
let drafts: { compile(schema: unknown): unknown; removeSchema(): unknown }[] | undefined;

const newDrafts = () => [
  new Ajv({ strict: false, validateFormats: false, logger: false }),
  new Ajv2020({ strict: false, validateFormats: false, logger: false }),
];

/**
 * Both drafts' instances and meta-schema validators made ahead, while a variant's drivers leave this thread idle
 * (side by side, the stdio result arrives only once every group has ended). No verdict changes: each compile meets
 * the same emptied instance either way, and nothing enters the verdicts by text.
 */
export function warmToolSchemas(): void {
  drafts ??= newDrafts();
  for (const ajv of drafts)
    try {
      ajv.compile({});
    } catch {
      // A draft that cannot compile the empty schema says so when a real schema is checked.
    } finally {
      ajv.removeSchema();
    }
}

function compileProblem(schema: boolean | Record<string, unknown>): string | undefined {
  drafts ??= newDrafts();
  const errors: string[] = [];
  for (const ajv of drafts) {
    try {
      ajv.compile(schema);
      return undefined;
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    } finally {
      ajv.removeSchema();
    }
  }
  return errors[0];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
