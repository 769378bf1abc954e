// The GitHub workflow init writes (.github/workflows/mcp-matrix.yml): the required release job, inline
// (plan → pack once → one job per cell → merge), for the package manager and directory init found.
import type { WorkflowRepo } from './repo.js';
import { PNPM_VERSION } from '../../pack/pm-tool.js';
import { attestJob } from './attest-job.js';
import { ACTIONS } from './actions.js';
import { DEFAULT_NODE, workflowSteps } from './workflow-steps.js';
import { HARNESS_VERSION } from '../../version.js';

/** The repository init saw: a root package with npm and a package-lock.json unless told otherwise. */
export const DEFAULT_REPO: WorkflowRepo = {
  workingDirectory: '.',
  pm: 'npm',
  yarnBerry: false,
  lockfile: 'package-lock.json',
  engines: false,
};

/** The gate job's name, the check to require: `mcp-matrix <dir>/<config>`, one per package. */
export function checkName(workingDirectory: string, config = 'matrix.config.ts'): string {
  return `mcp-matrix ${workingDirectory}/${config}`;
}

/** The workflow init writes: the required release job, inline (plan → pack once → one job per cell → merge). */
export function renderWorkflow(repo: WorkflowRepo = DEFAULT_REPO): string {
  const { wd, at, nodeRun, exec, installStep, setup, checkout, fromRun, key, slug, defaults, where } = workflowSteps(repo);
  return `# The required release job: mcp-matrix plan → pack once → one job per SDK variant → merge (the gate).
# Written by \`mcp-matrix init\`. Make the "${checkName(wd)}" check required in the branch protection rules (docs/github.md).
# Locally, the same sequence: ${exec} plan --json > plan.json; ${exec} pack --plan plan.json; ${exec} run --plan plan.json --cell ID --tarball FILE; ${exec} merge --plan plan.json DIR.
${where}name: mcp-matrix${wd === '.' ? '' : ` (${wd})`}

on:
  push:
    branches: [main]
  pull_request:
  # A merge queue's commit needs the required check too, or the queue never merges.
  merge_group:
  workflow_dispatch:

# actions: read lets a re-run's downloads reach the first attempt's artifacts (github-token + run-id).
permissions:
  contents: read
  actions: read

# Pull requests: a newer run cancels the older one. Pushes: every commit keeps its run (its own sha).
concurrency:
  group: mcp-matrix-\${{ github.workflow }}-\${{ github.event_name == 'pull_request' && github.ref || github.sha }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

env:
  CONFIG: matrix.config.ts
  # Secrets for the servers: never here (every step, the install included, would see them). Give them to the
  # run step only (its env:, as \${{ secrets.NAME }}) and to the servers in the config, e.g.
  # env: { API_KEY: process.env.API_KEY ?? '' }. Fork and Dependabot pull requests get no secrets.

jobs:
  # Resolves against the registry once: plan.json (the frozen plan) is what every cell job runs, re-runs too.
  plan:
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    outputs:
      matrix: \${{ steps.plan.outputs.matrix }}
      # Names this workflow's artifacts: another workflow or call in the same run has another.
      key: \${{ steps.plan.outputs.key }}
      node-version: \${{ steps.detect.outputs.node-version || '${DEFAULT_NODE}' }}
    steps:
${checkout}
${setup('plan')}
${installStep}
      # The workflow and the CLI it runs come from one release: another minor (0.x) or major may read other files.
      - env:
          WORKFLOW_VERSION: ${HARNESS_VERSION}
        run: |
          cli="$(${exec} --version)"; cli="\${cli#mcp-matrix/}"; cli="\${cli%% *}"
          if [ "$(echo "$cli" | cut -d. -f1-2)" != "$(echo "$WORKFLOW_VERSION" | cut -d. -f1-2)" ]; then
            echo "::error title=mcp-matrix version::this workflow was written by mcp-matrix $WORKFLOW_VERSION, but the installed CLI is $cli: run mcp-matrix init again (or install $WORKFLOW_VERSION)."
            exit 1
          fi
      # The package manager init found is still the package's (pack uses the package's own); node-version: the floor of
      # engines.node.
      - id: detect
        run: |
          found="$(${exec} detect${repo.pm === 'pnpm' && !repo.pmField ? ` --pnpm-version ${PNPM_VERSION}` : ''})"
          if ! grep -qx 'package-manager=${repo.pm}' <<< "$found"; then
            echo "::error title=mcp-matrix detect::this workflow was written for ${repo.pm}, but mcp-matrix detect says $(grep '^package-manager=' <<< "$found"): run mcp-matrix init again."
            exit 1
          fi
      - id: plan
        run: |
          ${exec} plan --json --config "$CONFIG" > plan.json
          echo "matrix=$(${nodeRun} -p 'JSON.stringify({ include: require("./plan.json").include })')" >> "$GITHUB_OUTPUT"
          echo "key=${slug}-$(${nodeRun} -p 'require("./plan.json").configHash.slice(0, 12)')" >> "$GITHUB_OUTPUT"
      - uses: ${ACTIONS.upload}
        with:
          name: mcp-matrix-\${{ steps.plan.outputs.key }}-plan
          path: ${at('plan.json')}
          if-no-files-found: error
          overwrite: true
          retention-days: 30

  pack:
    needs: plan
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    steps:
${checkout}
${setup('other')}
${installStep}
      # A TypeScript server's tarball must contain its build (dist/): build before packing, by the package manager
      # (Yarn Plug'n'Play has no node_modules/.bin).
      - run: |
          if node -e 'process.exit(require("./package.json").scripts?.build ? 0 : 1)'; then ${repo.pm} run build; fi
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-plan
          path: ${wd}
${fromRun}
      # Once; every cell installs this tarball. Packed by the package's own package manager (pnpm and Yarn rewrite
      # workspace: and catalog: ranges, npm would leave them).
      - run: ${exec} pack --plan plan.json --out package-tarball
      - uses: ${ACTIONS.upload}
        with:
          name: mcp-matrix-${key}-tarball
          path: ${at('package-tarball/*.tgz')}
          if-no-files-found: error
          overwrite: true
          retention-days: 30

  # One job per variant of the plan (a cell without axes is one variant, its id the cell's).
  cell:
    name: cell \${{ matrix.id }} (\${{ matrix.version }})
    needs: [plan, pack]
    runs-on: ubuntu-latest
    timeout-minutes: 30
${defaults}    strategy:
      fail-fast: false
      matrix: \${{ fromJSON(needs.plan.outputs.matrix) }}
    steps:
${checkout}
      # A Node variant's job runs on its exact release (plan --json's \`node\`): the harness then uses this binary, no download.
${setup('cell')}
${installStep}
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-tarball
          path: ${at('package-tarball')}
${fromRun}
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-plan
          path: ${wd}
${fromRun}
      # The mcp-matrix action ships in the installed package: copied to a fixed place (uses: takes no expressions).
      - run: |
          mkdir -p "$GITHUB_WORKSPACE/.mcp-matrix-action"
          ${nodeRun} -e 'require("fs").copyFileSync(require.resolve("mcp-matrix/action.yml"), process.argv[1])' "$GITHUB_WORKSPACE/.mcp-matrix-action/action.yml"
      # A piece of the fan-out: merge alone writes the annotations and the step summary; this job uploads cell-results/.
      - uses: ./.mcp-matrix-action
        with:
          config: \${{ env.CONFIG }}
          working-directory: ${wd}
          plan: plan.json
          cell: \${{ matrix.id }}
          tarball: package-tarball/*.tgz
          out: cell-results/attempt-\${{ github.run_attempt }}/\${{ matrix.id }}
${repo.pm === 'yarn' ? `          cli: ${exec}\n` : ''}          piece: 'true'
          artifact: ''
      # cell-results/ holds attempt-<n>/<id>/: merge-multiple downloads give the same layout for 1 artifact or 256.
      - if: always()
        uses: ${ACTIONS.upload}
        with:
          name: mcp-matrix-${key}-cell-\${{ matrix.id }}-attempt-\${{ github.run_attempt }}
          path: ${at('cell-results/')}
          overwrite: true
          retention-days: 30

  # The check to require: its name carries the package directory and the config, so each package of a monorepo
  # has a check of its own (GitHub does not tell two checks of one name apart).
  merge:
    name: ${checkName(wd)}
    needs: [plan, pack, cell]
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    steps:
      # Names every dependency that did not succeed, first: a plan or pack failure is the cause, not "no results".
      - name: the jobs merge depends on
        # Before the checkout: the working directory does not exist yet.
        working-directory: .
        env:
          PLAN: \${{ needs.plan.result }}
          PACK: \${{ needs.pack.result }}
          CELLS: \${{ needs.cell.result }}
        run: |
          bad=0
          for dep in "plan:$PLAN" "pack:$PACK" "cell:$CELLS"; do
            name="\${dep%%:*}"; result="\${dep#*:}"
            [ "$result" = success ] && continue
            # Skipped because an earlier job failed: that job is the cause, already named; never a second one.
            [ "$bad" = 1 ] && [ "$result" = skipped ] && continue
            level=error; [ "$name" = cell ] && level=warning || bad=1
            echo "::$level title=mcp-matrix $name job $result::the $name job's result is $result."
            echo "- the **$name** job's result is **$result**." >> "$GITHUB_STEP_SUMMARY"
          done
          exit "$bad"
${checkout}
${setup('other')}
${installStep}
      - uses: ${ACTIONS.download}
        with:
          name: mcp-matrix-${key}-plan
          path: ${wd}
${fromRun}
      - uses: ${ACTIONS.download}
        with:
          pattern: mcp-matrix-${key}-cell-*
          merge-multiple: true
          path: ${at('cell-results')}
${fromRun}
      # The gate: a planned variant without results, twice, or from another plan fails here.
      - run: ${exec} merge --plan plan.json cell-results --out matrix-results
      - if: always()
        uses: ${ACTIONS.upload}
        with:
          name: mcp-matrix-${key}-results
          path: ${at('matrix-results')}
          overwrite: true
          retention-days: 30
      # GitHub code scanning (optional): matrix.sarif's findings (bind exposure, auth and spec checks, SDK mismatches,
      # leaks) as alerts. Uncomment the step, and give this job the permissions it needs:
      #   permissions:
      #     contents: read
      #     actions: read
      #     security-events: write
      # Non-blocking (an upload failure never fails the gate), its own category:
      # - if: always() && hashFiles('${at('matrix-results/matrix.sarif')}') != ''
      #   continue-on-error: true
      #   uses: ${ACTIONS.uploadSarif}
      #   with:
      #     sarif_file: ${at('matrix-results/matrix.sarif')}
      #     category: mcp-matrix-${slug}

${attestJob({ key, fromRun })}`;
}
