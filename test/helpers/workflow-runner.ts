// A local runner for this repository's GitHub workflows (a test helper: GitHub Actions cannot run here).
// It follows GitHub's documented semantics for what the workflows use:
// - jobs in `needs` order, one at a time; a job runs when its `if` holds (default `success()`: every
//   needed job succeeded), else it is skipped; a matrix from `fromJSON(...)` (`include` entries) is one
//   job per entry, and the job's result for `needs` is failure if any entry failed, else cancelled if any
//   was cancelled, else success (skipped when every entry was skipped);
// - the trigger list: a workflow whose `on:` lacks the event (or `workflow_call`, for a call) runs no job;
// - `run` steps with `bash -e -o pipefail {0}` (what `shell: bash` runs; a step without `shell` on Linux gets
//   the same from `defaults.run.shell: bash`, and `bash -e {0}` only where no shell is named anywhere),
//   `defaults.run.working-directory`,
//   env (workflow, job, GITHUB_ENV, step), GITHUB_OUTPUT / GITHUB_ENV in both `k=v` and heredoc forms,
//   GITHUB_STEP_SUMMARY, workflow commands on stdout and stderr (`::error`/`::warning`/`::notice` collected
//   as annotations, `::add-mask::` masking later output), `if:` with the status functions, `continue-on-error`;
// - an empty matrix fails the job (GitHub: "Matrix vector 'include' does not contain any values");
// - the job's name (the check name; a called workflow's is `<caller job> / <name>`) and the concurrency group;
// - local composite actions (`uses: ./path`, relative to the workspace; action.yml or action.yaml): `inputs` from
//   `with` else the declared defaults, the action's own `steps` context and status functions, `shell` required
//   in its run steps, no job `defaults` inside it, GITHUB_ACTION_PATH / github.action_path, the caller's env plus
//   the step's `env`, GITHUB_ENV and the summary shared with the job, outputs from `outputs.<id>.value`; the
//   step fails when one of its steps did (its log lists each inner step as `▸ name (outcome)`);
// - "re-run failed jobs": a job that succeeded in the previous attempt keeps its result and outputs,
//   a failed or cancelled one (and every job needing a re-run job) runs again; artifacts persist in the
//   run across attempts; one artifact store per run, shared by every call of a reusable workflow in it
//   (`artifacts`);
// - permissions: a job's token has its own, else the workflow's (absent: the permissive default, id-token none); a
//   called workflow's job that asks for more than its caller grants fails the call to start (`startupFailure`);
// - GITHUB_PATH (the newest entry first on PATH); a step summary over 1 MiB dropped whole with an error annotation;
//   hashFiles() in a step's expressions;
// - stand-ins for actions: checkout (copies the repository), setup-node and pnpm/action-setup as their sources
//   read their inputs and fail (test/helpers/workflow-actions.ts; Node itself is this machine's), the image's
//   corepack and global Yarn 1 (real pnpm and Yarn from `tools`), actions/attest and attest-build-provenance
//   (their permission and input rules; the statement recorded in `attestations`, not signed), and the
//   artifact actions per their READMEs: upload-artifact (root = the directory given, or the one before the
//   first wildcard; `overwrite`, `if-no-files-found`; a name already in the run fails without overwrite),
//   download-artifact v5+ (by `name`: into `path`; by `pattern`/all: into `path/<name>/` unless
//   `merge-multiple`, and a pattern matching exactly one artifact is extracted flat into `path`; without
//   `github-token` and `run-id` it reads through the runner's artifact service, which resolves against the
//   current run attempt, so an earlier attempt's artifact is a 404, as download-artifact#486 reports; with
//   them, the REST API, which needs `actions: read` where the workflow sets permissions).
// Deviations, stated: jobs never run in parallel; `stub` replaces a run step's exact text (npm ci), or the command of a step that runs one variable, by
// another and `workflowEnv` a workflow-level env value (the CLI command), so that tests stay cheap; `cancel` marks a job instance cancelled before its first step
// (steps with always()/cancelled() still run, as on GitHub).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { attest, hashFiles, setupNode, setupPnpm, writeImageTools, type ActionResult, type Attestation } from './workflow-actions.js';
import { condition, interpolate, stringOf, type Scope, type Value } from './workflow-expr.js';

/** GitHub's limit on one step's summary (the runner's AttachmentSizeLimit). */
const SUMMARY_LIMIT = 1024 * 1024;

/** A workflow's or job's `permissions`: a map of scopes, read-all or write-all; absent: the repository's default. */
export type Permissions = Record<string, string> | string | undefined;

/** One scope's access under `permissions`; absent, the permissive default (every scope write, id-token none). */
export function access(p: Permissions, scope: string): 'none' | 'read' | 'write' {
  if (p === undefined) return scope === 'id-token' ? 'none' : 'write';
  if (p === 'write-all') return 'write';
  if (p === 'read-all') return scope === 'id-token' ? 'none' : 'read';
  if (typeof p !== 'object') return 'none';
  const v = p[scope];
  return v === 'write' || v === 'read' ? v : 'none';
}
const RANK = { none: 0, read: 1, write: 2 } as const;

export type JobResult = 'success' | 'failure' | 'cancelled' | 'skipped';

export interface StepRecord {
  name: string;
  id?: string;
  outcome: JobResult;
  conclusion: JobResult;
  outputs: Record<string, string>;
  /** stdout + stderr, masked. */
  log: string;
}

export interface JobRecord {
  job: string;
  matrix?: Record<string, Value>;
  result: JobResult;
  outputs: Record<string, string>;
  steps: StepRecord[];
  annotations: { level: string; title: string; message: string }[];
  summary: string;
  attempt: number;
  /** The check name GitHub shows (and a branch rule requires): the job's `name`, else its id. */
  check: string;
}

export interface Artifact {
  name: string;
  attempt: number;
  /** Relative path → content. */
  files: Map<string, Buffer>;
}

export interface RunRecord {
  attempt: number;
  jobs: JobRecord[];
  /** The artifacts of the whole run (every attempt, every call). */
  artifacts: Map<string, Artifact>;
  /** False when the workflow's `on:` does not list the event: no job ran. */
  triggered: boolean;
  /** The workflow's concurrency group, evaluated (empty without one). */
  concurrency: string;
  /** A called workflow that asks for more than its caller grants never starts (GitHub's startup failure). */
  startupFailure?: string;
  /** What the attest stand-ins recorded, in order (actions/attest, attest-build-provenance). */
  attestations: (Attestation & { job: string })[];
  result(job: string): JobResult;
  job(job: string, matrixId?: string): JobRecord;
  /** Every annotation of every job, `level title: message`. */
  annotations(): string[];
}

export interface RunOptions {
  workflow: string;
  /** The repository actions/checkout gives each job (copied, node_modules excluded). */
  repo: string;
  event?: { name: string; payload?: Record<string, Value>; actor?: string; ref?: string; sha?: string };
  inputs?: Record<string, Value>;
  secrets?: Record<string, string>;
  /** The `vars` context (configuration variables of the repository or organisation). */
  vars?: Record<string, string>;
  /** The process environment of every step (PATH, HOME, TMPDIR, …). */
  env: Record<string, string>;
  /** Workflow-level env values replaced (documented deviation: the CLI command, for cost). */
  workflowEnv?: Record<string, string>;
  /** Exact run-step text → replacement (documented deviation, for cost). */
  stub?: Record<string, string>;
  cancel?(job: string, matrix?: Record<string, Value>): boolean;
  /** Called before a job instance starts (e.g. a registry release between the plan and the cells). */
  beforeJob?(job: string, matrix?: Record<string, Value>): void;
  /** "Re-run failed jobs" of this earlier attempt. */
  rerunFailedOf?: RunRecord;
  /** "Re-run all jobs" of this earlier attempt: every job runs again, the run's artifacts stay. */
  rerunAllOf?: RunRecord;
  /** The run's artifact store, shared by every call of a reusable workflow in one run. */
  artifacts?: Map<string, Artifact>;
  /** Real package managers for the stand-ins (pnpm/action-setup, corepack, the image's Yarn 1): `name@version` → bin dir. */
  tools?: Record<string, string>;
  /**
   * The workflow is called (`workflow_call`) by this job of a caller workflow named `workflow`, whose token has
   * `permissions` (the calling job's, else the caller workflow's; absent: the repository's permissive default).
   */
  calledBy?: { job: string; workflow: string; permissions?: Permissions };
}

interface Step {
  name?: string;
  id?: string;
  if?: string | boolean;
  run?: string;
  uses?: string;
  with?: Record<string, Value>;
  env?: Record<string, Value>;
  'working-directory'?: string;
  'continue-on-error'?: boolean;
  /** Required in an action's run steps. */
  shell?: string;
}

/** A local action's action.yml (composite ones are run). */
interface ActionDef {
  inputs?: Record<string, { default?: Value }>;
  outputs?: Record<string, { value?: Value }>;
  runs?: { using?: string; steps?: Step[] };
}

type StepsContext = Record<string, { outputs: Record<string, string>; outcome: JobResult; conclusion: JobResult }>;

/** Where a step runs: the job's steps, or a composite action's (its own steps context and status). */
interface Frame {
  steps: StepsContext;
  status: Scope['status'];
  scope: () => Scope;
  /** A composite action's directory (absent at the job's level). */
  actionPath?: string;
}

interface Job {
  name?: string;
  permissions?: Permissions;
  needs?: string | string[];
  if?: string | boolean;
  env?: Record<string, Value>;
  defaults?: { run?: { 'working-directory'?: string; shell?: string } };
  outputs?: Record<string, string>;
  strategy?: { matrix?: Value };
  steps: Step[];
}

interface Workflow {
  env?: Record<string, Value>;
  permissions?: Permissions;
  concurrency?: { group?: string } | string;
  defaults?: { run?: { shell?: string } };
  on?: {
    [event: string]: unknown;
    workflow_call?: { inputs?: Record<string, { default?: Value }> };
    workflow_dispatch?: { inputs?: Record<string, { default?: Value }> };
  };
  jobs: Record<string, Job>;
}

const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);

function aggregate(records: JobRecord[]): JobResult {
  if (records.length === 0) return 'skipped';
  if (records.some((r) => r.result === 'failure')) return 'failure';
  if (records.some((r) => r.result === 'cancelled')) return 'cancelled';
  if (records.every((r) => r.result === 'skipped')) return 'skipped';
  return 'success';
}

/** `k=v` lines and `k<<DELIM … DELIM` blocks (GITHUB_OUTPUT, GITHUB_ENV). */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, key, delimiter] = heredoc;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) body.push(lines[i]!);
      if (i >= lines.length) throw new Error(`matching delimiter not found '${delimiter}'`);
      out[key!] = body.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`invalid file command line: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

function listFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(path.join(dir, f)).isFile()).sort();
}

const globRe = (glob: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

export function runWorkflow(options: RunOptions): RunRecord {
  const wf = parse(readFileSync(options.workflow, 'utf8')) as Workflow;
  const previous = options.rerunFailedOf;
  const earlier = previous ?? options.rerunAllOf;
  const attempt = earlier ? earlier.attempt + 1 : 1;
  const artifacts = earlier ? earlier.artifacts : (options.artifacts ?? new Map<string, Artifact>());
  const declared = { ...wf.on?.workflow_dispatch?.inputs, ...wf.on?.workflow_call?.inputs };
  const inputs: Record<string, Value> = Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.default ?? '']));
  Object.assign(inputs, options.inputs);
  const event = options.event ?? { name: 'push' };
  const github = {
    event_name: event.name,
    event: event.payload ?? {},
    actor: event.actor ?? 'octocat',
    ref: event.ref ?? 'refs/heads/main',
    sha: event.sha ?? '0123456789abcdef0123456789abcdef01234567',
    repository: 'owner/repo',
    // In a called workflow, github.workflow is the caller's.
    workflow: options.calledBy?.workflow ?? 'acceptance',
    run_attempt: String(attempt),
    run_id: '1',
    token: 'ghs_runnertoken',
  };
  const triggers = typeof wf.on === 'string' ? [wf.on] : Array.isArray(wf.on) ? (wf.on as string[]) : Object.keys(wf.on ?? {});
  const triggered = triggers.includes(options.calledBy ? 'workflow_call' : event.name);
  const attestations: RunRecord['attestations'] = [];
  // A job's token: its own permissions, else the workflow's; in a called workflow never more than the caller's,
  // and a called workflow that asks for more fails to start (GitHub checks every job before any runs).
  const requested = (job: Job) => job.permissions ?? wf.permissions;
  const granted = (job: Job, scope: string) => {
    const own = requested(job);
    if (!options.calledBy) return access(own, scope);
    return own === undefined ? access(options.calledBy.permissions, scope) : access(own, scope);
  };
  let startupFailure: string | undefined;
  if (options.calledBy && triggered)
    for (const [id, job] of Object.entries(wf.jobs)) {
      const own = requested(job);
      if (own === undefined) continue;
      const scopes =
        typeof own === 'object' ? Object.keys(own) : ['actions', 'attestations', 'contents', 'id-token', 'packages', 'security-events'];
      for (const scope of scopes) {
        const allowed = access(options.calledBy.permissions, scope);
        if (RANK[access(own, scope)] > RANK[allowed]) {
          startupFailure ??= `The nested job '${id}' is requesting '${scope}: ${access(own, scope)}', but is only allowed '${scope}: ${allowed}'.`;
        }
      }
    }
  const masks: string[] = [];
  const mask = (text: string) => masks.reduce((t, m) => (m ? t.split(m).join('***') : t), text);
  const records: JobRecord[] = [];
  const rerun = new Set<string>();
  const base = (ctx: Record<string, Value>, status: Scope['status']): Scope => ({
    contexts: {
      github,
      inputs,
      secrets: options.secrets ?? {},
      vars: options.vars ?? {},
      runner: { os: 'Linux', temp: os.tmpdir() },
      ...ctx,
    },
    status,
  });
  const wfEnv = (scope: Scope) => ({
    ...Object.fromEntries(Object.entries(wf.env ?? {}).map(([k, v]) => [k, stringOf(interpolate(stringOf(v), scope))])),
    ...options.workflowEnv,
  });

  /** A job's check name: its `name` (matrix and inputs interpolated) else its id; a call's is `<caller job> / <name>`. */
  const checkName = (id: string, job: Job, scope: Scope, matrix?: Record<string, Value>) => {
    const own = job.name ? stringOf(interpolate(job.name, base({ ...scope.contexts, matrix: matrix ?? {} }, scope.status))) : id;
    return options.calledBy ? `${options.calledBy.job} / ${own}` : own;
  };
  const concurrency = (() => {
    const group = typeof wf.concurrency === 'string' ? wf.concurrency : wf.concurrency?.group;
    return group ? stringOf(interpolate(group, base({ env: {} }, { success: true, failure: false, cancelled: false }))) : '';
  })();

  const done = new Set<string>();
  const order: string[] = [];
  const visit = (id: string) => {
    if (done.has(id)) return;
    for (const n of needsOf(wf.jobs[id]!)) visit(n);
    done.add(id);
    order.push(id);
  };
  for (const id of Object.keys(wf.jobs)) visit(id);
  if (!triggered || startupFailure) order.length = 0;

  for (const id of order) {
    const job = wf.jobs[id]!;
    const needs = Object.fromEntries(
      needsOf(job).map((n) => {
        const rs = records.filter((r) => r.job === n);
        return [n, { result: aggregate(rs), outputs: Object.assign({}, ...rs.map((r) => r.outputs)) as Record<string, string> }];
      }),
    );
    const needsStatus = {
      success: Object.values(needs).every((n) => n.result === 'success'),
      failure: Object.values(needs).some((n) => n.result === 'failure'),
      cancelled: false,
    };
    const jobScope = base({ needs, env: {} }, needsStatus);
    (jobScope.contexts as Record<string, Value>).env = wfEnv(jobScope);
    const runs = condition(job.if, jobScope);
    let entries: (Record<string, Value> | undefined)[] = [undefined];
    if (runs && job.strategy?.matrix !== undefined) {
      const m = (typeof job.strategy.matrix === 'string' ? interpolate(job.strategy.matrix, jobScope) : job.strategy.matrix) as {
        include?: Record<string, Value>[];
      };
      entries = m.include ?? [];
      const broken =
        entries.length === 0
          ? "Matrix vector 'include' does not contain any values"
          : entries.length > 256
            ? 'Strategy matrix may not generate more than 256 jobs'
            : undefined;
      if (broken) {
        // As on GitHub: the job fails before any step, with the error on the run.
        records.push({
          job: id,
          result: 'failure',
          outputs: {},
          steps: [],
          annotations: [{ level: 'error', title: '', message: `Error when evaluating 'strategy' for job '${id}'. ${broken}` }],
          summary: '',
          attempt,
          check: id,
        });
        continue;
      }
    }
    for (const [index, matrix] of entries.entries()) {
      const record: JobRecord = {
        job: id,
        ...(matrix ? { matrix } : {}),
        result: 'skipped',
        outputs: {},
        steps: [],
        annotations: [],
        summary: '',
        attempt,
        check: checkName(id, job, jobScope, matrix),
      };
      records.push(record);
      if (!runs) continue;
      const before = previous?.jobs.find((r) => r.job === id && stringOf(r.matrix?.id) === stringOf(matrix?.id));
      const dependsOnRerun = needsOf(job).some((n) => rerun.has(n));
      if (previous && before && before.result === 'success' && !dependsOnRerun) {
        Object.assign(record, { ...before, steps: before.steps });
        continue;
      }
      if (previous) rerun.add(id);
      options.beforeJob?.(id, matrix);
      runJob(id, job, record, matrix, needs, { index, total: entries.length });
    }
  }

  function runJob(
    id: string,
    job: Job,
    record: JobRecord,
    matrix: Record<string, Value> | undefined,
    needs: Record<string, Value>,
    slot: { index: number; total: number },
  ) {
    const workspace = mkdtempSync(path.join(options.env.TMPDIR ?? os.tmpdir(), `wf-${id}-`));
    const temp = mkdtempSync(path.join(options.env.TMPDIR ?? os.tmpdir(), `wf-tmp-`));
    const status = { success: true, failure: false, cancelled: options.cancel?.(id, matrix) ?? false };
    if (status.cancelled) status.success = false;
    const steps: StepsContext = {};
    const addedEnv: Record<string, string> = {};
    // GITHUB_PATH entries (the newest first on PATH), then the image's tools (corepack, Yarn 1), then the machine's.
    const addedPath: string[] = [];
    const image = path.join(temp, 'image-bin');
    mkdirSync(image);
    writeImageTools(image, options.tools ?? {});
    const processEnv = (stepEnv: Record<string, string>) => ({
      ...options.env,
      ...stepEnv,
      PATH: [...addedPath]
        .reverse()
        .concat(image, stepEnv.PATH ?? options.env.PATH ?? '')
        .join(path.delimiter),
    });
    let fileIndex = 0;
    const scope = (): Scope => {
      const s = base(
        {
          github: { ...github, job: id },
          needs,
          matrix: matrix ?? {},
          strategy: { 'job-index': slot.index, 'job-total': slot.total },
          steps,
          job: { status: status.cancelled ? 'cancelled' : status.failure ? 'failure' : 'success' },
          env: {},
        },
        status,
      );
      const env = { ...wfEnv(s) };
      const withJob = base({ ...s.contexts, env }, status);
      for (const [k, v] of Object.entries(job.env ?? {})) env[k] = stringOf(interpolate(stringOf(v), withJob));
      Object.assign(env, addedEnv);
      return { ...base({ ...s.contexts, env }, status), hashFiles: (patterns) => hashFiles(workspace, patterns.join('\n')) };
    };

    /**
     * One step, at the job's level or inside a composite action (`frame`): its `if`, env, a `run` script or an
     * action, then its outputs, GITHUB_ENV (for every later step of the job) and the job summary.
     */
    function execStep(step: Step, frame: Frame): StepRecord {
      const index = fileIndex++;
      const s = frame.scope();
      const name = step.name ? stringOf(interpolate(step.name, s)) : (step.run ?? step.uses ?? `step ${index}`);
      if (!condition(step.if, s)) {
        if (step.id) frame.steps[step.id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
        return { name, ...(step.id ? { id: step.id } : {}), outcome: 'skipped', conclusion: 'skipped', outputs: {}, log: '' };
      }
      const stepEnv = { ...(s.contexts.env as Record<string, string>) };
      for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = stringOf(interpolate(stringOf(v), s));
      const files = {
        output: path.join(temp, `output-${index}`),
        env: path.join(temp, `env-${index}`),
        summary: path.join(temp, `summary-${index}`),
        path: path.join(temp, `path-${index}`),
      };
      for (const f of Object.values(files)) writeFileSync(f, '');
      let ok = true;
      let log = '';
      let actionOutputs: Record<string, string> | undefined;
      if (step.run !== undefined) {
        // An action's run step must name its shell (action.yml's schema); a workflow's defaults to bash.
        if (frame.actionPath !== undefined && !step.shell) {
          ok = false;
          log = `Error: ${frame.actionPath}/action.yml: Required property is missing: shell\n`;
        } else {
          // A stub matches the step's text, or the command a step of one variable (`run: $INSTALL`) runs.
          const own = step.run.trim();
          const command = /^"?\$\{?(\w+)\}?"?$/.exec(own)?.[1];
          const script =
            options.stub?.[own] ?? (command ? options.stub?.[stepEnv[command] ?? ''] : undefined) ?? stringOf(interpolate(step.run, s));
          // Job defaults apply to the workflow's own run steps, never inside an action.
          const wd = step['working-directory'] ?? (frame.actionPath === undefined ? job.defaults?.run?.['working-directory'] : undefined);
          const cwd = path.resolve(workspace, wd ? stringOf(interpolate(wd, s)) : '.');
          const file = path.join(temp, `step-${index}.sh`);
          writeFileSync(file, script);
          // `shell: bash` (named on the step, or by defaults.run.shell) is `bash --noprofile --norc -eo pipefail {0}`;
          // only a workflow step with no shell named anywhere gets `bash -e {0}`.
          const shell = step.shell ?? (frame.actionPath === undefined ? (job.defaults?.run?.shell ?? wf.defaults?.run?.shell) : undefined);
          const out = spawnSync('bash', shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', file] : ['-e', file], {
            cwd,
            env: {
              ...processEnv(stepEnv),
              GITHUB_ACTIONS: 'true',
              CI: 'true',
              GITHUB_WORKSPACE: workspace,
              RUNNER_TEMP: temp,
              GITHUB_RUN_ATTEMPT: String(attempt),
              GITHUB_EVENT_NAME: github.event_name,
              GITHUB_ACTOR: github.actor,
              GITHUB_OUTPUT: files.output,
              GITHUB_ENV: files.env,
              GITHUB_STEP_SUMMARY: files.summary,
              GITHUB_PATH: files.path,
              ...(frame.actionPath !== undefined ? { GITHUB_ACTION_PATH: frame.actionPath } : {}),
            },
            encoding: 'utf8',
            maxBuffer: 64 * 1024 * 1024,
            timeout: 300_000,
          });
          // As on GitHub: a missing working directory fails the step before the shell starts.
          const text = `${out.stdout ?? ''}${out.stderr ?? ''}${out.error ? `An error occurred trying to start process 'bash' with working directory '${cwd}': ${out.error.message}\n` : ''}`;
          for (const line of text.split('\n')) {
            const m = /^::add-mask::(.*)$/.exec(line);
            if (m) masks.push(m[1]!);
          }
          // The runner reads workflow commands from stdout and stderr alike.
          for (const line of text.split('\n')) {
            const a = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line);
            if (!a) continue;
            const title = /(?:^|,)title=([^,]*)/.exec(a[2] ?? '')?.[1] ?? '';
            const unescape = (t: string) =>
              t.replace(/%0A/g, '\n').replace(/%0D/g, '\r').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
            record.annotations.push({ level: a[1]!, title: mask(unescape(title)), message: mask(unescape(a[3]!)) });
          }
          log = mask(text);
          ok = out.status === 0;
        }
      } else if ((step.uses ?? '').startsWith('./')) {
        const result = runComposite(step, s, stepEnv, frame);
        ok = result.ok;
        log = result.log;
        actionOutputs = result.outputs;
      } else {
        const result = runAction(step, s, workspace, job, processEnv(stepEnv));
        record.annotations.push(...(result.annotations ?? []));
        ok = result.ok;
        log = result.log;
        actionOutputs = result.outputs;
        addedPath.push(...(result.path ?? []));
        Object.assign(addedEnv, result.env);
      }
      const outputs = actionOutputs ?? parseFileCommands(readFileSync(files.output, 'utf8'));
      Object.assign(addedEnv, parseFileCommands(readFileSync(files.env, 'utf8')));
      addedPath.push(...readFileSync(files.path, 'utf8').split('\n').filter(Boolean));
      // The runner uploads a step's summary up to 1 MiB; above, none of it, with an error on the run (not the step).
      const summary = readFileSync(files.summary);
      if (summary.length > SUMMARY_LIMIT)
        record.annotations.push({
          level: 'error',
          title: '',
          message: `$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of ${SUMMARY_LIMIT / 1024}k, got ${Math.floor(summary.length / 1024)}k. For more information see: https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-markdown-summary`,
        });
      else record.summary += summary.toString('utf8');
      const outcome: JobResult = ok ? 'success' : 'failure';
      const conclusion: JobResult = ok || step['continue-on-error'] ? 'success' : 'failure';
      if (step.id) frame.steps[step.id] = { outputs, outcome, conclusion };
      if (conclusion === 'failure') {
        frame.status.success = false;
        frame.status.failure = true;
      }
      return { name, ...(step.id ? { id: step.id } : {}), outcome, conclusion, outputs, log };
    }

    /**
     * A local action (`uses: ./path`, relative to the workspace), as GitHub runs a composite one: `inputs` from
     * `with` else the declared defaults, its own `steps` context and status, GITHUB_ACTION_PATH and
     * github.action_path, the caller's env plus the step's `env`, its outputs from `outputs.<id>.value`.
     */
    function runComposite(step: Step, s: Scope, stepEnv: Record<string, string>, caller: Frame) {
      const dir = path.resolve(workspace, step.uses!);
      const file = ['action.yml', 'action.yaml'].map((f) => path.join(dir, f)).find((f) => existsSync(f));
      if (!file)
        return {
          ok: false,
          log: `Error: Can't find 'action.yml', 'action.yaml' or 'Dockerfile' under '${dir}'. Did you forget to run actions/checkout before running your local action?`,
        };
      const action = parse(readFileSync(file, 'utf8')) as ActionDef;
      if (action.runs?.using !== 'composite') return { ok: false, log: `the local runner runs composite actions only (${step.uses})` };
      const inputs: Record<string, string> = {};
      for (const [k, def] of Object.entries(action.inputs ?? {}))
        inputs[k] = stringOf(
          step.with?.[k] !== undefined ? interpolate(stringOf(step.with[k]), s) : interpolate(stringOf(def.default ?? ''), s),
        );
      const unexpected = Object.keys(step.with ?? {}).filter((k) => !(k in (action.inputs ?? {})));
      if (unexpected.length > 0)
        record.annotations.push({ level: 'warning', title: '', message: `Unexpected input(s) '${unexpected.join("', '")}'` });
      const inner: Frame = {
        steps: {},
        status: { ...caller.status },
        actionPath: dir,
        scope: () => ({
          ...base(
            {
              ...s.contexts,
              github: { ...(s.contexts.github as Record<string, Value>), action_path: dir },
              inputs,
              steps: inner.steps,
              env: { ...stepEnv, ...addedEnv, ...Object.fromEntries(Object.keys(step.env ?? {}).map((k) => [k, stepEnv[k]!])) },
            },
            inner.status,
          ),
          ...(s.hashFiles ? { hashFiles: s.hashFiles } : {}),
        }),
      };
      const logs: string[] = [];
      for (const inside of action.runs.steps ?? []) {
        const rec = execStep(inside, inner);
        logs.push(`▸ ${rec.name} (${rec.outcome})\n${rec.log}`);
      }
      const outputs = Object.fromEntries(
        Object.entries(action.outputs ?? {}).map(([k, o]) => [k, stringOf(interpolate(stringOf(o.value), inner.scope()))]),
      );
      return { ok: !inner.status.failure, log: logs.join('\n'), outputs };
    }

    const jobFrame: Frame = { steps, status, scope };
    try {
      for (const step of job.steps) record.steps.push(execStep(step, jobFrame));
      record.result = status.cancelled ? 'cancelled' : status.failure ? 'failure' : 'success';
      const s = scope();
      record.outputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([k, v]) => [k, stringOf(interpolate(v, s))]));
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(temp, { recursive: true, force: true });
    }
  }

  function runAction(step: Step, s: Scope, workspace: string, job: Job, env: Record<string, string>): ActionResult {
    const input = (k: string): string => stringOf(step.with?.[k] === undefined ? '' : interpolate(stringOf(step.with[k]), s));
    const action = (step.uses ?? '').replace(/@.*$/, '');
    const at = (p: string) => path.resolve(workspace, p || '.');
    if (action === 'actions/checkout') {
      cpSync(options.repo, workspace, { recursive: true, filter: (src) => !src.split(path.sep).includes('node_modules') });
      return { ok: true, log: 'checked out' };
    }
    const ctx = { workspace, env, input, tools: options.tools ?? {} };
    if (action === 'actions/setup-node') return setupNode(ctx);
    if (action === 'pnpm/action-setup') return setupPnpm(ctx);
    if (action === 'actions/attest' || action === 'actions/attest-build-provenance') {
      const result = attest(ctx, (scope) => granted(job, scope));
      if (result.attestation)
        attestations.push({
          job: s.contexts.github ? stringOf((s.contexts.github as Record<string, Value>).job) : '',
          ...result.attestation,
        });
      return result;
    }
    if (action === 'actions/upload-artifact') {
      const name = input('name') || 'artifact';
      const spec = input('path');
      const wildcard = spec.split('/').findIndex((part) => part.includes('*'));
      let root: string;
      let files: string[];
      if (wildcard >= 0) {
        const parts = spec.split('/');
        root = at(parts.slice(0, wildcard).join('/'));
        const re = globRe(parts.slice(wildcard).join('/'));
        files = existsSync(root) ? listFiles(root).filter((f) => re.test(f)) : [];
      } else if (existsSync(at(spec)) && statSync(at(spec)).isDirectory()) {
        root = at(spec);
        files = listFiles(root);
      } else {
        root = path.dirname(at(spec));
        files = existsSync(at(spec)) ? [path.basename(spec)] : [];
      }
      if (files.length === 0) {
        const mode = input('if-no-files-found') || 'warn';
        const message = `No files were found with the provided path: ${spec}. No artifacts will be uploaded.`;
        return mode === 'error' ? { ok: false, log: `Error: ${message}` } : { ok: true, log: message };
      }
      const existing = artifacts.get(name);
      if (existing && input('overwrite') !== 'true')
        return {
          ok: false,
          log: `Error: Failed to CreateArtifact: an artifact with this name already exists on the workflow run (${name})`,
        };
      artifacts.set(name, { name, attempt, files: new Map(files.map((f) => [f, readFileSync(path.join(root, f))])) });
      return { ok: true, log: `uploaded ${name}: ${files.join(', ')}` };
    }
    if (action === 'actions/download-artifact') {
      const dest = at(input('path'));
      const name = input('name');
      // With github-token and run-id: the REST API (the run's artifacts, every attempt), which the token may read
      // only with `actions: read` where permissions are set; without: the runner's service, this attempt only.
      const api = input('github-token') !== '' && input('run-id') !== '';
      if (api) {
        if (granted(job, 'actions') === 'none')
          return { ok: false, log: 'Error: Unable to download artifact(s): Resource not accessible by integration (actions: read)' };
      }
      const reachable = (a: Artifact) => api || a.attempt === attempt;
      const notFound = `Error: Unable to download artifact(s): Failed to GetSignedArtifactURL: Received non-retryable error: Failed request: (404) Not Found: workflow run not found`;
      const write = (a: Artifact, dir: string) => {
        for (const [f, content] of a.files) {
          mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
          writeFileSync(path.join(dir, f), content);
        }
      };
      if (name) {
        const a = artifacts.get(name);
        if (!a) return { ok: false, log: `Error: Unable to download artifact(s): Artifact not found for name: ${name}` };
        if (!reachable(a)) return { ok: false, log: notFound };
        write(a, dest);
        return { ok: true, log: `downloaded ${name}` };
      }
      const pattern = input('pattern');
      const matched = [...artifacts.values()].filter((a) => !pattern || globRe(pattern).test(a.name));
      if (matched.some((a) => !reachable(a))) return { ok: false, log: notFound };
      const flat = matched.length === 1 || input('merge-multiple') === 'true';
      for (const a of matched) write(a, flat ? dest : path.join(dest, a.name));
      return { ok: true, log: `downloaded ${matched.length} artifact(s)${flat ? ' into one directory' : ''}` };
    }
    return { ok: false, log: `the local runner has no stand-in for ${step.uses}` };
  }

  return {
    attempt,
    jobs: records,
    artifacts,
    triggered,
    concurrency,
    ...(startupFailure ? { startupFailure } : {}),
    attestations,
    result: (job) => aggregate(records.filter((r) => r.job === job)),
    job: (job, matrixId) => {
      const found = records.find((r) => r.job === job && (matrixId === undefined || stringOf(r.matrix?.id) === matrixId));
      if (!found) throw new Error(`no job ${job}${matrixId ? ` (${matrixId})` : ''}`);
      return found;
    },
    annotations: () => records.flatMap((r) => r.annotations.map((a) => `${a.level} ${a.title}: ${a.message}`)),
  };
}
