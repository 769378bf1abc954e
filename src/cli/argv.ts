// argv before cac sees it: `help [command]`, values that look like flags, and `run` as the default command;
// and the flag readers the command table uses.

/** Options whose value may itself start with `--`. */
const VALUE_FLAGS = ['--http', '--http-env'];

/** `help X` is `X --help`; `--http "--transport http"` keeps its value; `mcp-matrix --cell 2.0.0` is `run --cell 2.0.0`. */
export function normalizeArgv(argv: readonly string[]): string[] {
  const helped = argv[0] === 'help' ? (argv[1] ? [argv[1], '--help'] : ['--help']) : argv;
  const joined = helped.flatMap((a, i) =>
    VALUE_FLAGS.includes(helped[i - 1] ?? '')
      ? []
      : VALUE_FLAGS.includes(a) && helped[i + 1] !== undefined
        ? [`${a}=${helped[i + 1]}`]
        : [a],
  );
  const first = joined[0];
  return first === undefined || (first.startsWith('-') && !['-h', '--help', '-v', '--version'].includes(first))
    ? ['run', ...joined]
    : joined;
}

/** A repeatable, comma-separated option: every value. */
export const list = (v: unknown): string[] =>
  v === undefined
    ? []
    : (Array.isArray(v) ? v : [v])
        .flatMap((x) => String(x).split(','))
        .map((s) => s.trim())
        .filter(Boolean);

/** An option's value (the last one given), or undefined when absent or given bare. */
export const str = (v: unknown): string | undefined =>
  v === undefined || v === true ? undefined : String(Array.isArray(v) ? v.at(-1) : v);

/** `{ [key]: value }` when the value is there, else nothing: for optional fields under exactOptionalPropertyTypes. */
export function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
