// The adapter's part (adapter.ts) that reads a client's own validation error: which field of an answer the
// client could not read, from zod 3 or zod 4 issues, or (major 2) the issues inside an SdkError
// INVALID_RESULT's message. It knows the SDK major for that reason only, as the adapter does.

interface Issue {
  code?: string;
  path?: (string | number)[];
  message?: string;
  /** zod 3: each union member's issues, with full paths. */
  unionErrors?: { issues?: Issue[] }[];
  /** zod 4: each union member's issues, with paths relative to the union. */
  errors?: Issue[][];
}

/**
 * A client that rejected a result it received: the SDK's own zod validation (zod 3 `ZodError` up to
 * 1.22, zod 4 `$ZodError` after; v2 wraps it in an `SdkError` INVALID_RESULT whose message carries the
 * issues as JSON). Returns what it could not read, or null for any other error.
 */
export function unreadable(error: unknown, major: number, answer: unknown): { what: string; type?: string } | null {
  const e = error as { issues?: unknown; code?: unknown; message?: unknown } | null;
  let issues: unknown = e?.issues;
  if (!Array.isArray(issues) && major >= 2 && e?.code === 'INVALID_RESULT' && typeof e.message === 'string') {
    try {
      issues = JSON.parse(e.message.slice(e.message.indexOf('[')));
    } catch {
      issues = undefined;
    }
  }
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const issue = issues[0] as Issue;
  const path = issue.path ?? [];
  const branches = (issue.unionErrors?.map((u) => u.issues ?? []) ?? issue.errors ?? []).map((b) => b.map((i) => relativeTo(path, i)));
  if (issue.code === 'invalid_union' && branches.length) {
    const type = (at(answer, path) as { type?: unknown } | undefined)?.type;
    const refusesType = (b: Issue[]): boolean =>
      b.some((i) => i.path?.length === 1 && i.path[0] === 'type' && /^invalid_(literal|value)$/.test(i.code ?? ''));
    if (typeof type === 'string' && branches.every(refusesType)) {
      return { what: `${fieldPath(path)} has type ${JSON.stringify(type)}, which this client does not know`, type };
    }
    const fitting = branches.find((b) => b.length && !refusesType(b));
    const inner = fitting?.[0];
    if (inner) return { what: `${fieldPath([...path, ...(inner.path ?? [])])}: ${inner.message ?? inner.code}` };
  }
  return { what: `${fieldPath(path)}: ${issue.message ?? issue.code}` };
}

function relativeTo(prefix: (string | number)[], issue: Issue): Issue {
  const p = issue.path ?? [];
  const under = p.length >= prefix.length && prefix.every((k, i) => p[i] === k);
  return under ? { ...issue, path: p.slice(prefix.length) } : issue;
}

function at(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string | number, unknown>)[k] : undefined), value);
}

/** `content[0].type`; the whole result when the path is empty. */
function fieldPath(path: (string | number)[]): string {
  const text = path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  return text || 'the result';
}
