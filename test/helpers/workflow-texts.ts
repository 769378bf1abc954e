// The workflow texts the tests read: init's template and the repository's workflows, and a workflow's jobs as blocks.
import { readFile } from 'node:fs/promises';
import { renderWorkflow } from '../../src/commands/init/workflow-template.js';

export const ACCEPTANCE = new URL('../../.github/workflows/acceptance.yml', import.meta.url);
export const CI = new URL('../../.github/workflows/ci.yml', import.meta.url);
export const ACTION = new URL('../../action.yml', import.meta.url);
export const ATTEST = new URL('../../.github/workflows/attest.yml', import.meta.url);

export const texts = async () => ({
  init: renderWorkflow(),
  acceptance: await readFile(ACCEPTANCE, 'utf8'),
  ci: await readFile(CI, 'utf8'),
  attest: await readFile(ATTEST, 'utf8'),
});

/** `name:` → its block of lines, for the jobs of a workflow. */
export function jobs(text: string): Map<string, string> {
  const body = text.slice(text.indexOf('\njobs:\n') + 7);
  const out = new Map<string, string>();
  for (const block of body.split(/\n(?= {2}[\w-]+:\n)/)) {
    const name = /^ {2}([\w-]+):/.exec(block)?.[1];
    if (name) out.set(name, block);
  }
  return out;
}
