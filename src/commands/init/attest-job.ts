// init's opt-in attest job: signs the tarball the gate tested, after the gate passed; its check step is shared
// with .github/workflows/attest.yml (a test holds the two equal).
import { ACTIONS } from './actions.js';
import type { WorkflowSteps } from './workflow-steps.js';

/**
 * The step before signing, in init's attest job and in .github/workflows/attest.yml alike (a test holds them equal):
 * the downloaded tarball is the one the gate's statement names (name, sha512), and its predicate goes to a file.
 */
export const ATTEST_CHECK_STEP = `      - name: the tarball is the one the gate tested; its predicate
        run: |
          # shellcheck disable=SC2016 # a Node program, its template literals in single quotes on purpose
          node -e '
            const crypto = require("node:crypto"), fs = require("node:fs");
            const fail = (why) => { console.log(\`::error title=mcp-matrix attest::\${why}\`); process.exit(1); };
            let s;
            try { s = JSON.parse(fs.readFileSync("matrix-results/attestation.intoto.json", "utf8")); } catch (e) { fail(\`no gate statement in the results artifact (matrix-results/attestation.intoto.json): \${e.message}\`); }
            if (s.predicateType !== "urn:mcp-matrix:gate:v1" || !Array.isArray(s.subject) || s.subject.length !== 1) fail("attestation.intoto.json is not a gate statement (urn:mcp-matrix:gate:v1 with one subject)");
            const files = fs.readdirSync("package-tarball").filter((f) => f.endsWith(".tgz"));
            if (files.length !== 1) fail(\`package-tarball holds \${files.length} tarballs, not 1\`);
            const sha512 = crypto.createHash("sha512").update(fs.readFileSync(\`package-tarball/\${files[0]}\`)).digest("hex");
            if (files[0] !== s.subject[0].name || sha512 !== s.subject[0].digest.sha512) fail(\`package-tarball/\${files[0]} is not the tarball the gate tested (\${s.subject[0].name}, sha512 \${s.subject[0].digest.sha512.slice(0, 16)}…)\`);
            fs.writeFileSync("gate-predicate.json", JSON.stringify(s.predicate));
            console.log(\`\${files[0]}: sha512 \${sha512.slice(0, 16)}… as tested; verdict \${s.predicate.verdict}\`);
          '
`;

/** The attest job's text, the last job of the workflow. */
export function attestJob({ key, fromRun }: Pick<WorkflowSteps, 'key' | 'fromRun'>): string {
  return `  # The gate's attestation, signed: the tested tarball with the gate's statement (attestation.intoto.json), so a
  # release verifies it before npm publish (gh attestation verify; docs/github.md). Opt-in: set the repository
  # variable MCP_MATRIX_ATTEST to true. Pushes only (a fork's pull request gets no id-token); artifact attestations
  # need a public repository or GitHub Enterprise Cloud. Not the check to require: it runs after the gate passed.
  attest:
    needs: [plan, merge]
    if: vars.MCP_MATRIX_ATTEST == 'true' && github.event_name == 'push'
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: read
      actions: read
      id-token: write
      attestations: write
    steps:
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-results
          path: matrix-results
${fromRun}
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-tarball
          path: package-tarball
${fromRun}
${ATTEST_CHECK_STEP}      - uses: ${ACTIONS.attest}
        with:
          subject-path: package-tarball/*.tgz
          predicate-type: urn:mcp-matrix:gate:v1
          predicate-path: gate-predicate.json
`;
}
