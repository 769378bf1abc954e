// The attest job (src/commands/init/attest-job.ts): attest.yml and init's job check the tarball the same way, then
// sign it with the gate predicate, opt-in and with write scopes on its own job only.
import { describe, expect, test } from 'vitest';
import { ACTIONS } from '../../../src/commands/init/actions.js';
import { ATTEST_CHECK_STEP } from '../../../src/commands/init/attest-job.js';
import { jobs, texts } from '../../helpers/workflow-texts.js';

describe('attest job', () => {
  test("signing: attest.yml and init's attest job check the tarball the same way, then sign it with the gate predicate", async () => {
    const { init, attest } = await texts();
    for (const text of [init, attest]) {
      expect(text).toContain(ATTEST_CHECK_STEP);
      expect(text).toContain(
        `${ATTEST_CHECK_STEP}      - ${text === attest ? 'id: attest\n        ' : ''}uses: ${ACTIONS.attest}\n        with:\n          subject-path: package-tarball/*.tgz\n          predicate-type: urn:mcp-matrix:gate:v1\n          predicate-path: gate-predicate.json\n`,
      );
    }
    // Opt-in, on pushes, after the gate; its write scopes on its own job only (init) or in its own workflow (attest.yml).
    const job = jobs(init).get('attest')!;
    expect(job).toContain("    if: vars.MCP_MATRIX_ATTEST == 'true' && github.event_name == 'push'\n");
    expect(job).toContain('    needs: [plan, merge]\n');
    expect(job).toContain('      id-token: write\n      attestations: write\n');
    expect(init.slice(0, init.indexOf('\njobs:\n'))).not.toMatch(/id-token|attestations/);
    expect((await texts()).acceptance).not.toMatch(/^ *(id-token|attestations):/m);
  });
});
