// The parts of matrix.html always shown above and below the grid: the run's header (package, tarball,
// commit, harness, Node, time), why it has its verdict, surface parity, the list of failures with
// links into the grid, and the warnings.

import type { RunResult } from '../../results/types.js';
import { PHASES } from '../../results/types.js';
import { judgeBaseline, runReasons, storedFacts } from '../../judge/verdict.js';
import { hasAxes } from '../../results/variants.js';
import { bytes, seconds } from '../view/format.js';
import { displayCells, phaseOf, runVerdictLabel } from '../view/view.js';
import { detailId } from './detail.js';
import { el, text } from './escape.js';
import { isProblem, MARKS, stateOf, type State } from './marks.js';
import { paritySection } from './parity-section.js';

const RUN_STATE: Record<RunResult['verdict'], State> = { passed: 'pass', failed: 'fail', 'not-measured': 'nm', interrupted: 'nm' };

function fact(name: string, value: string, title?: string): string {
  return el('div', { class: 'fact' }, el('dt', {}, text(name)), el('dd', title ? { title } : {}, text(value)));
}

/** The servers' Node versions (with axes, each one seen). */
function serverNodes(run: RunResult): string {
  const seen = [...new Set(run.cells.map((c) => c.environment?.node).filter((n): n is string => Boolean(n)))];
  return seen.length === 0 ? '—' : seen.join(', ');
}

export function renderHeader(run: RunResult): string {
  const state = RUN_STATE[run.verdict];
  const pkg = `${run.plan.package.name}@${run.plan.package.version}`;
  const title = el(
    'h1',
    {},
    el('span', { class: `badge s-${state}` }, text(`${MARKS[state].mark} ${runVerdictLabel(run.verdict)}`)),
    ' ',
    text(pkg),
  );
  const tarball = run.plan.tarball;
  const facts = [
    fact('package', pkg),
    fact('tarball', `${tarball.file} · ${bytes(tarball.size)}`),
    fact('tarball sha512', tarball.sha512, tarball.sha512),
    fact('commit', run.plan.package.commit ?? 'unknown'),
    fact('harness', `${run.tool.name} ${run.tool.version}`),
    fact('Node (host)', `${run.host.node} · npm ${run.host.npm} · ${run.host.os}${run.host.ci ? ` · ${run.host.ci}` : ''}`),
    fact('Node (servers)', serverNodes(run)),
    fact('time', `${run.startedAt} → ${run.finishedAt} (${seconds(run.durationMs)})`),
    fact('config', `${run.plan.configFile ?? '—'} · sha256 ${run.plan.configHash.slice(0, 12)}`, run.plan.configHash),
    fact('exit code', String(run.exitCode)),
  ];
  const out = [title, el('dl', { class: 'facts' }, ...facts)];
  const cells = displayCells(run);
  const reasons = runReasons(cells, run.interrupted, storedFacts(run));
  if (reasons.length > 0)
    out.push(
      el(
        'div',
        { class: `why-run s-${state}` },
        el('strong', {}, text(`Why ${runVerdictLabel(run.verdict)}:`)),
        el('ul', {}, ...reasons.map((r) => el('li', {}, text(r)))),
      ),
    );
  const expected = judgeBaseline(cells, run.baseline?.entries ?? []).expected;
  if (expected.length > 0)
    out.push(
      el(
        'p',
        {},
        text(
          `Expected failures (${run.baseline?.file ?? 'baseline'}): ${expected.map((x) => `${x.cell} · ${x.phase} (line ${x.entry.line}: ${x.entry.reason})`).join('; ')}`,
        ),
      ),
    );
  if (run.interrupted)
    out.push(el('p', { class: 's-nm' }, 'The run was interrupted: variants and phases without a result are shown as not measured.'));
  return el('header', {}, ...out);
}

export function renderSurface(run: RunResult): string {
  const s = run.surface;
  const h = el('h2', {}, 'Surface parity');
  if (!s) return el('section', { id: 'surface' }, h, el('p', {}, 'not checked (surface: false in the config)'));
  const unit = `${hasAxes(run.plan) ? 'variant' : 'cell'}${s.cells.length === 1 ? '' : 's'}`;
  const failing = s.findings.length + (s.drift?.length ?? 0);
  const state: State = s.cells.length === 0 ? 'nm' : failing > 0 ? 'fail' : 'pass';
  const head =
    s.cells.length === 0
      ? 'not compared (no stdio run listed a surface)'
      : failing === 0
        ? `identical on ${s.cells.length} ${unit}${s.allowed.length ? ` but for ${s.allowed.length} allowed difference(s)` : ''}${s.drift?.length === 0 ? ' · matches mcp-surface.json' : ''}`
        : `${failing} difference(s) on ${s.cells.length} ${unit}`;
  return paritySection('surface', h, state, head, s);
}

/** Every failed or not-measured variant × phase, each a link that opens its square. */
export function renderFailureList(run: RunResult): string {
  const items = displayCells(run).flatMap((v) =>
    PHASES.flatMap((name) => {
      const p = phaseOf(v, name);
      const state = stateOf(v, p);
      if (!isProblem(state)) return [];
      const link = el('a', { href: `#${detailId(v.id, name)}`, 'data-open': '' }, text(`${v.id} · ${name}`));
      return [
        el(
          'li',
          { class: `s-${state}` },
          text(`${MARKS[state].mark} ${MARKS[state].word} `),
          link,
          p.message ? text(`: ${p.message}`) : '',
        ),
      ];
    }),
  );
  const body = items.length
    ? el('ul', { class: 'failures' }, ...items)
    : el('p', { class: 's-pass' }, text(`${MARKS.pass.mark} nothing failed and everything was measured`));
  return el('section', { id: 'failures' }, el('h2', {}, text(`Failures (${items.length})`)), body);
}

export function renderWarningList(run: RunResult): string {
  if (run.warnings.length === 0) return '';
  return el(
    'section',
    { id: 'warnings' },
    el('h2', {}, 'Warnings'),
    el('ul', {}, ...run.warnings.map((w) => el('li', {}, text(`! ${w}`)))),
  );
}
