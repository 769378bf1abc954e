// Every action the workflows use (src/commands/init/actions.ts): pinned by full commit SHA with its release as a
// comment, one pin per action in init's template, the repository's workflows and action.yml.
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { DEFAULT_REPO, renderWorkflow } from '../../../src/commands/init/workflow-template.js';
import { ACTIONS } from '../../../src/commands/init/actions.js';
import { ACTION, texts } from '../../helpers/workflow-texts.js';

describe('ACTIONS', () => {
  test('every action is pinned by full commit SHA with its release as a comment, one pin per action everywhere', async () => {
    const pins = new Map(Object.values(ACTIONS).map((a) => [a.split('@')[0]!, a]));
    const all = {
      ...(await texts()),
      'init (pnpm)': renderWorkflow({ ...DEFAULT_REPO, pm: 'pnpm', lockfile: 'pnpm-lock.yaml' }),
      action: await readFile(ACTION, 'utf8'),
    };
    for (const [name, text] of Object.entries(all)) {
      // Commented steps (code scanning) included: uncommented, they must be pinned too.
      const uses = [...text.matchAll(/^[ #-]*uses: ([^.<\s][^@\s]*)@(.*)$/gm)];
      expect(uses.length, name).toBeGreaterThan(0);
      for (const [, action, ref] of uses) {
        expect(`${name}: ${action}@${ref}`).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
        expect(`${name}: ${action}@${ref}`).toBe(`${name}: ${pins.get(action!) ?? `${action} (not in ACTIONS)`}`);
      }
    }
  });
});
