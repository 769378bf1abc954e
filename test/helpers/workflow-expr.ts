// GitHub Actions expressions (`${{ … }}` and `if:`), as documented in "Evaluate expressions in workflows
// and actions": literals, context property access (`a.b`, `a['b']`, `a.*` not needed here), `!`, `<`,
// `<=`, `>`, `>=`, `==`, `!=`, `&&`, `||` (returning an operand, not a boolean), parentheses, and the
// functions contains, startsWith, endsWith, format, join, toJSON, fromJSON and the status checks.
// Comparison follows the documented coercion: strings case-insensitively, mixed types as numbers.

export type Value = unknown;
export interface Scope {
  contexts: Record<string, Value>;
  /** success(), failure(), cancelled() for where the expression is evaluated. */
  status: { success: boolean; failure: boolean; cancelled: boolean };
  /** hashFiles(...patterns) in a job's steps (the workspace's files); absent where GitHub has no workspace. */
  hashFiles?: (patterns: string[]) => string;
}

type Token = { t: 'num' | 'str' | 'id' | 'op'; v: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new Error(`unterminated string in ${src}`);
        if (src[i] === "'" && src[i + 1] === "'") {
          s += "'";
          i += 2;
        } else if (src[i] === "'") break;
        else s += src[i++];
      }
      i++;
      out.push({ t: 'str', v: s });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^-?(0x[0-9a-f]+|\d+(\.\d+)?(e[+-]?\d+)?)/i.exec(src.slice(i))!;
      out.push({ t: 'num', v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else {
      const two = src.slice(i, i + 2);
      const op = ['==', '!=', '<=', '>=', '&&', '||'].includes(two) ? two : '!<>()[].,*'.includes(c) ? c : undefined;
      if (op === undefined) throw new Error(`unexpected ${c} in ${src}`);
      out.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  return out;
}

export function truthy(v: Value): boolean {
  return !(v === false || v === 0 || v === '' || v === null || v === undefined || Number.isNaN(v));
}

function toNumber(v: Value): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? 0 : Number(v);
  return NaN;
}

function equal(a: Value, b: Value): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b) return a === b;
  const object = (v: Value) => v !== null && typeof v === 'object';
  if (object(a) || object(b)) return false;
  return toNumber(a) === toNumber(b);
}

/** How a value becomes a string inside `${{ }}` (objects as JSON, null as empty). */
export function stringOf(v: Value): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  return String(v);
}

export function evaluate(src: string, scope: Scope): Value {
  const tokens = tokenize(src);
  let p = 0;
  const peek = () => tokens[p];
  const take = (v?: string) => {
    const t = tokens[p++];
    if (!t || (v !== undefined && t.v !== v)) throw new Error(`expected ${v ?? 'a token'} in ${src}`);
    return t;
  };
  const or = (): Value => {
    let left = and();
    while (peek()?.v === '||') {
      take();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): Value => {
    let left = cmp();
    while (peek()?.v === '&&') {
      take();
      const right = cmp();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const cmp = (): Value => {
    let left = unary();
    while (['==', '!=', '<', '>', '<=', '>='].includes(peek()?.v ?? '')) {
      const op = take().v;
      const right = unary();
      if (op === '==') left = equal(left, right);
      else if (op === '!=') left = !equal(left, right);
      else {
        const [a, b] = typeof left === 'string' && typeof right === 'string' ? [left, right] : [toNumber(left), toNumber(right)];
        left = op === '<' ? a < b : op === '>' ? a > b : op === '<=' ? a <= b : a >= b;
      }
    }
    return left;
  };
  const unary = (): Value => {
    if (peek()?.v === '!') {
      take();
      return !truthy(unary());
    }
    return postfix();
  };
  const postfix = (): Value => {
    let v = primary();
    for (;;) {
      if (peek()?.v === '.') {
        take();
        const name = take().v;
        v = prop(v, name);
      } else if (peek()?.v === '[') {
        take();
        const key = or();
        take(']');
        v = prop(v, stringOf(key));
      } else return v;
    }
  };
  const prop = (v: Value, name: string): Value => {
    if (v === null || typeof v !== 'object') return null;
    const rec = v as Record<string, Value>;
    const key = Object.keys(rec).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? null : rec[key];
  };
  const primary = (): Value => {
    const t = take();
    if (t.t === 'num') return Number(t.v);
    if (t.t === 'str') return t.v;
    if (t.v === '(') {
      const v = or();
      take(')');
      return v;
    }
    if (t.t !== 'id') throw new Error(`unexpected ${t.v} in ${src}`);
    if (t.v === 'true') return true;
    if (t.v === 'false') return false;
    if (t.v === 'null') return null;
    if (peek()?.v === '(') {
      take();
      const args: Value[] = [];
      while (peek()?.v !== ')') {
        args.push(or());
        if (peek()?.v === ',') take();
      }
      take(')');
      return call(t.v, args);
    }
    const name = Object.keys(scope.contexts).find((k) => k.toLowerCase() === t.v.toLowerCase());
    if (name === undefined) throw new Error(`unknown context ${t.v} in ${src}`);
    return scope.contexts[name];
  };
  const call = (name: string, args: Value[]): Value => {
    switch (name.toLowerCase()) {
      case 'always':
        return true;
      case 'success':
        return scope.status.success;
      case 'failure':
        return scope.status.failure;
      case 'cancelled':
        return scope.status.cancelled;
      case 'fromjson':
        return JSON.parse(stringOf(args[0])) as Value;
      case 'tojson':
        return JSON.stringify(args[0] ?? null, null, 2);
      case 'contains':
        return Array.isArray(args[0])
          ? args[0].some((x) => equal(x, args[1]))
          : stringOf(args[0]).toLowerCase().includes(stringOf(args[1]).toLowerCase());
      case 'startswith':
        return stringOf(args[0]).toLowerCase().startsWith(stringOf(args[1]).toLowerCase());
      case 'endswith':
        return stringOf(args[0]).toLowerCase().endsWith(stringOf(args[1]).toLowerCase());
      case 'format':
        return stringOf(args[0]).replace(/\{(\d+)\}/g, (_m, i: string) => stringOf(args[Number(i) + 1]));
      case 'join':
        return Array.isArray(args[0]) ? args[0].map(stringOf).join(args.length > 1 ? stringOf(args[1]) : ',') : stringOf(args[0]);
      case 'hashfiles':
        if (!scope.hashFiles) throw new Error('hashFiles is only available in a job step');
        return scope.hashFiles(args.map(stringOf));
      default:
        throw new Error(`function ${name} is not supported by the local runner`);
    }
  };
  const v = or();
  if (p !== tokens.length) throw new Error(`trailing tokens in ${src}`);
  return v;
}

/** `a ${{ x }} b` → the string; a value that is one whole `${{ }}` keeps its type (for matrix, outputs). */
export function interpolate(text: string, scope: Scope): Value {
  const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(text);
  if (whole && !whole[1]!.includes('}}')) return evaluate(whole[1]!, scope);
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, e: string) => stringOf(evaluate(e, scope)));
}

/** An `if:` condition: with or without `${{ }}`; a condition without a status function gets `success() &&`. */
export function condition(text: string | boolean | undefined, scope: Scope, defaultCheck = 'success()'): boolean {
  if (text === undefined) return truthy(evaluate(defaultCheck, scope));
  if (typeof text === 'boolean') return text && truthy(evaluate(defaultCheck, scope));
  const bare = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)?.[1] ?? text;
  const statusCall = /\b(success|failure|cancelled|always)\s*\(/i.test(bare);
  return truthy(evaluate(statusCall ? bare : `(${defaultCheck}) && (${bare})`, scope));
}
