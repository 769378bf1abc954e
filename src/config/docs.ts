// docs/config.md, rendered from the schema (keys, types, required) and CONFIG_REFERENCE (meaning).
// `npm run docs:config` writes it; test/config/docs.test.ts fails when the file and the schema disagree.
import type { z } from 'zod';
import { CONFIG_REFERENCE } from './reference.js';
import { configSchema } from './schema.js';
import { schemaRows, type SchemaRow } from './schema-tree.js';

export const CONFIG_DOC = 'docs/config.md';

/** Keys of the schema without an entry in CONFIG_REFERENCE, and entries that name no key. */
export function referenceGaps(schema: z.ZodType = configSchema): { undocumented: string[]; unknown: string[] } {
  const paths = schemaRows(schema).map((r) => r.path);
  return {
    undocumented: paths.filter((p) => CONFIG_REFERENCE[p] === undefined),
    unknown: Object.keys(CONFIG_REFERENCE).filter((k) => !paths.includes(k)),
  };
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

function table(rows: SchemaRow[]): string {
  return [
    '| key | type | meaning |',
    '| --- | --- | --- |',
    ...rows.map(
      (r) => `| \`${r.path}\`${r.required ? ' (required)' : ''} | ${cell(r.type)} | ${cell(CONFIG_REFERENCE[r.path] ?? 'UNDOCUMENTED')} |`,
    ),
  ].join('\n');
}

export function renderConfigDocs(schema: z.ZodType = configSchema): string {
  const rows = schemaRows(schema);
  const top = rows.filter((r) => !/[.[]/.test(r.path));
  const sections = top
    .map((t) => ({ key: t.path, rows: rows.filter((r) => r.path.startsWith(`${t.path}.`) || r.path.startsWith(`${t.path}[`)) }))
    .filter((s) => s.rows.length > 0);
  return `# Config reference: \`matrix.config.ts\`

<!-- Generated from src/config/schema.ts and src/config/reference.ts by \`npm run docs:config\`. Do not edit by hand:
     test/config/docs.test.ts fails when this file and the schema disagree. -->

mcp-matrix reads \`matrix.config.ts\` (or \`.mts\`, \`.js\`, \`.mjs\`) in the current directory, or the file \`--config\`
names. It exports a config, or a function that returns one, usually through \`defineConfig\`:

\`\`\`ts
import { defineConfig } from 'mcp-matrix';

export default defineConfig({
  cells: [{ pin: 'floor@1' }, { pin: 'latest@1' }],
  stdio: { expect: { tools: ['search'] } },
  http: false,
  bind: false,
  leaks: {},
});
\`\`\`

\`import 'mcp-matrix'\` resolves to the harness that loads the config, even where the config's directory has no install
of its own.

The config is validated strictly before anything runs: every problem is reported at once, one line each, as
\`path: message\` (an unknown key gets a did-you-mean), and the command exits 2. Pins are checked against the known
SDK majors (\`majors\`) at the same time.

**Phases.** A phase runs only when its key is present: \`http: {}\` runs it with the defaults below. A phase whose key is
absent is \`skipped (not configured)\`; one set to \`false\` is \`skipped (disabled)\`. A skipped phase is never waited for
and never shown as passed.

**Placeholders.** In \`args\` and \`env\` values, \`{host}\`, \`{port}\` and \`{token}\` are replaced by the host, the free port
and the random token of the phase; \`{cellDir}\` and \`{tmp}\` by the cell's directory and a temp directory of the cell.

## Top level

${table(top)}
${sections.map((s) => `\n## \`${s.key}\`\n\n${table(s.rows)}\n`).join('')}`;
}
