// The import boundary between the harness and the in-cell driver (src/driver, its own program), and the
// contract they share (src/contract: the check catalogue, the protocol, the cookie), which ships with the driver.
// The driver and the contract import only node:* builtins, their own files (the driver also the contract), and
// (type-only) src/results/types.ts: they run in cells where nothing else exists, and
// the driver's bare imports must resolve to the cell's SDK (loaded by adapter.ts alone). The harness imports
// the contract freely and the driver's types, never the driver's run-time code, except the /proc readers.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DRIVER = 'src/driver/';
const CONTRACT = 'src/contract/';
const DRIVER_TYPES = ['src/results/types'];
/** Harness module → the driver modules it may load at run time, and why. */
const HARNESS_RUNTIME = {
  // One /proc reader on both sides: the harness sweeps what a killed driver left.
  'src/process/cookie': ['src/driver/server/proc'],
};

/** The driver files that load a module by a computed name: the cell's SDK (adapter.ts); the suite's own imports, in a suite process (suite-gate.ts). */
const COMPUTED_IMPORTERS = [`${DRIVER}client/adapter.ts`, `${DRIVER}probe/suite-gate.ts`];

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');
const stem = (file) => file.replace(/\.(d\.ts|ts|js|mjs|cjs|mts|cts)$/, '');

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'the in-cell driver and the harness import each other only across the documented boundary' },
    schema: [],
  },
  create(context) {
    const importer = rel(context.filename);
    if (!importer.startsWith('src/')) return {};
    const inContract = importer.startsWith(CONTRACT);
    const inDriver = importer.startsWith(DRIVER) || inContract;

    const check = (node, source, typeOnly) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') {
        if (inDriver && node.type === 'ImportExpression' && !COMPUTED_IMPORTERS.includes(importer))
          context.report({
            node,
            message:
              'Only src/driver/client/adapter.ts (the cell’s SDK) and src/driver/probe/suite-gate.ts (the conformance suite’s own imports, in its process) load modules by a computed name.',
          });
        return;
      }
      const spec = source.value;
      const relative = spec.startsWith('./') || spec.startsWith('../');
      const target = relative ? rel(path.resolve(path.dirname(context.filename), spec)) : undefined;
      if (inDriver) {
        if (spec.startsWith('node:')) return;
        if (!target)
          return context.report({
            node: source,
            message: `The driver runs inside a cell: it imports only node:* builtins and its own files, not '${spec}' (the cell's SDK is loaded by adapter.ts).`,
          });
        if (target.startsWith(CONTRACT) || (!inContract && target.startsWith(DRIVER))) return;
        if (DRIVER_TYPES.includes(stem(target)))
          return typeOnly
            ? undefined
            : context.report({
                node: source,
                message: `The driver may import ${target} only with \`import type\` (nothing of it exists in a cell).`,
              });
        return context.report({
          node: source,
          message: `The driver is its own program: it may not import ${target} (only node:*, src/driver/**, src/contract/**, and type-only src/results/types.ts).`,
        });
      }
      if (!target || !target.startsWith(DRIVER) || typeOnly) return;
      if ((HARNESS_RUNTIME[stem(importer)] ?? []).includes(stem(target))) return;
      context.report({
        node: source,
        message: `The harness ships the driver, it does not run its code: import ${target} with \`import type\` (or run it in the driver).`,
      });
    };

    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type'),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};

export default { rules: { 'driver-boundary': rule } };
