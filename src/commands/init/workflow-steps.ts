// The steps every job of init's workflow repeats (checkout, package manager and Node setup, install), for the
// package manager and directory init found.
import type { WorkflowRepo } from './repo.js';
import { PNPM_VERSION } from '../../pack/pm-tool.js';
import { ACTIONS } from './actions.js';

/** The plan job's Node, and every other job's when the package declares no engines.node. */
export const DEFAULT_NODE = 'lts/*';

export type JobKind = 'plan' | 'cell' | 'other';

/** What the template writes for this repository: commands, repeated steps, artifact names and the job defaults. */
export function workflowSteps(repo: WorkflowRepo) {
  const wd = repo.workingDirectory;
  const at = (p: string) => (wd === '.' ? p : `${wd}/${p}`);
  // Yarn Plug'n'Play has no node_modules: its \`yarn node\` resolves packages, and \`yarn mcp-matrix\` starts the CLI.
  const nodeRun = repo.pm === 'yarn' ? 'yarn node' : 'node';
  const exec = { npm: 'npx --no-install mcp-matrix', pnpm: 'pnpm exec mcp-matrix', yarn: 'yarn mcp-matrix' }[repo.pm];
  // Without a lockfile none is demanded (pnpm and Yarn 2+ demand one in CI): installs as npm install does.
  const install = repo.lockfile
    ? {
        npm: 'npm ci',
        pnpm: 'pnpm install --frozen-lockfile',
        yarn: `yarn install ${repo.yarnBerry ? '--immutable' : '--frozen-lockfile'}`,
      }[repo.pm]
    : {
        npm: 'npm install',
        pnpm: 'pnpm install --no-frozen-lockfile',
        yarn: repo.yarnBerry ? 'yarn install --no-immutable' : 'yarn install',
      }[repo.pm];
  const lockDir = repo.lockfile ? repo.lockfile.split('/').slice(0, -1).join('/') || '.' : wd;
  // The install runs where the lockfile is (a workspace root installs every member).
  const installStep = `      - run: ${install}${lockDir !== wd ? `\n        working-directory: ${lockDir}` : ''}`;
  // One Node input only (a version file beside it is ignored, with a warning). The plan job's is the LTS; the
  // others run on its node-version output: the floor of engines.node (setup-node given the range takes the newest).
  const node = (job: JobKind) =>
    job === 'plan'
      ? DEFAULT_NODE
      : job === 'cell'
        ? '${{ matrix.node || needs.plan.outputs.node-version }}'
        : '${{ needs.plan.outputs.node-version }}';
  // pnpm/action-setup: the version from the packageManager field (its file named: a subpackage's counts), else
  // init's pin written here (never both: the action refuses two versions).
  const pnpmSetup = repo.pmField
    ? [`      - uses: ${ACTIONS.pnpm}`, '        with:', `          package_json_file: ${repo.pmField}`]
    : [
        '      # No packageManager field names pnpm\'s version: init\'s pin. Set "packageManager": "pnpm@<version>" in',
        '      # package.json and remove `version` (pnpm/action-setup refuses both).',
        `      - uses: ${ACTIONS.pnpm}`,
        '        with:',
        `          version: ${PNPM_VERSION}`,
      ];
  const setup = (job: JobKind) =>
    [
      ...(repo.pm === 'pnpm' ? pnpmSetup : []),
      ...(repo.pm === 'yarn' ? ['      - run: corepack enable'] : []),
      `      - uses: ${ACTIONS.setupNode}`,
      '        with:',
      `          node-version: ${node(job)}`,
      ...(repo.lockfile
        ? // setup-node looks for the lockfile at the root; elsewhere it is named.
          [`          cache: ${repo.pm}`, ...(repo.lockfile.includes('/') ? [`          cache-dependency-path: ${repo.lockfile}`] : [])]
        : []),
    ].join('\n');
  // No token left in .git/config for install scripts or the server under test.
  const checkout = `      - uses: ${ACTIONS.checkout}\n        with:\n          persist-credentials: false`;
  // Re-runs read the first attempt's artifacts only through the REST API (github-token, run-id; actions: read).
  const fromRun = `          github-token: \${{ github.token }}\n          run-id: \${{ github.run_id }}`;
  const key = '${{ needs.plan.outputs.key }}';
  const slug = wd === '.' ? 'root' : wd.replace(/[^\w.-]+/g, '-');
  const defaults = wd === '.' ? '' : `    defaults:\n      run:\n        working-directory: ${wd}\n`;
  const where =
    wd === '.'
      ? ''
      : `# The package is ${wd}: GitHub reads workflows only from the repository root, so this one is here and every
# run step works in ${wd} (defaults.run.working-directory).
`;
  return { wd, at, nodeRun, exec, installStep, setup, checkout, fromRun, key, slug, defaults, where };
}

export type WorkflowSteps = ReturnType<typeof workflowSteps>;
