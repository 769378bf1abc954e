// zod issues → one `path: message` line per leaf problem. Unions are unwrapped to the branch the value
// was meant for, so `stdio: Invalid input` becomes `stdio.expect.tools: …` and `stdio.timeout: unknown key`.
import type { z } from 'zod';
import { didYouMean } from '../util/did-you-mean.js';
import { knownKeys } from './schema-tree.js';

type Issue = z.core.$ZodIssue;

interface Leaf {
  path: PropertyKey[];
  message: string;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
      '',
    ) || '(root)'
  );
}

/** Every leaf problem as `path: message`, in the order zod found them. */
export function formatLeafIssues(error: z.ZodError, schema: z.ZodType): string[] {
  return leaves(error.issues, [], schema).map((l) => `${formatPath(l.path)}: ${l.message}`);
}

function leaves(issues: readonly Issue[], prefix: PropertyKey[], schema: z.ZodType): Leaf[] {
  return issues.flatMap((issue): Leaf[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, path);
      // A list of named checks is short and closed: name them all.
      const list = path.at(-1) === 'checks' ? `; the known checks are: ${known.join(', ')}` : '';
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown key${didYouMean(key, known)}${list}` }));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) return unionLeaves(issue.errors, path, schema);
    if (issue.code === 'invalid_value' && issue.values.length > 1 && issue.values.every((v) => typeof v === 'string')) {
      const values = issue.values as string[];
      const given = typeof issue.input === 'string' ? didYouMean(issue.input, values) : '';
      return [{ path, message: `must be one of ${values.map((v) => `"${v}"`).join(', ')}${given}` }];
    }
    return [{ path, message: plain(issue) }];
  });
}

/** A branch that failed only because the value is not of its type says nothing about the value. */
const wrongType = (branch: readonly Issue[]): boolean =>
  branch.length === 1 && branch[0]!.path.length === 0 && (branch[0]!.code === 'invalid_type' || branch[0]!.code === 'invalid_value');

function unionLeaves(branches: readonly (readonly Issue[])[], path: PropertyKey[], schema: z.ZodType): Leaf[] {
  const meant = branches.filter((b) => !wrongType(b));
  if (meant.length === 0) {
    const expected = [...new Set(branches.map((b) => expectedOf(b[0]!)))].join(' or ');
    const received = /received (\w+)/.exec(branches.map((b) => b[0]!.message).join(' '))?.[1];
    return [{ path, message: `expected ${expected}${received ? `, got ${received}` : ''}` }];
  }
  // Several branches fit the value's type (step kinds): the one with the fewest problems is the one meant.
  const candidates = meant.map((b) => leaves(b, path, schema));
  return candidates.reduce((best, c) => (c.length < best.length ? c : best));
}

function expectedOf(issue: Issue): string {
  if (issue.code === 'invalid_type')
    return issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'an object' : `a ${issue.expected}`;
  if (issue.code === 'invalid_value') return issue.values.map((v) => JSON.stringify(v)).join(' or ');
  return issue.message;
}

/** zod's wording, without its "Invalid input: " preamble. */
function plain(issue: Issue): string {
  return issue.message.replace(/^Invalid input: /, '');
}
