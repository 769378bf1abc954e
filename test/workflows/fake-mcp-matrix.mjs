#!/usr/bin/env node
// A stand-in for the mcp-matrix CLI in the workflow-plumbing tests: `plan --json` prints the prepared
// plan.json, `run --plan … --cell ID --out DIR` writes the prepared piece of ID (exit code its own), and
// `merge` is the real CLI (the gate under test). FAKE_DIR holds plan.json and pieces/<id>.json;
// FAKE_DIE lists cells whose run dies before writing (exit 3); FAKE_PLAN_EXIT fails the plan.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [command, ...args] = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const dir = process.env.FAKE_DIR;
if (command === 'plan') {
  if (process.env.FAKE_PLAN_EXIT) {
    process.stderr.write('mcp-matrix: the plan has problems (fake)\n');
    process.exit(Number(process.env.FAKE_PLAN_EXIT));
  }
  // As the real plan: the attempt that made it.
  const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8'));
  process.stdout.write(JSON.stringify({ ...plan, attempt: Number(process.env.GITHUB_RUN_ATTEMPT ?? 1) }));
} else if (command === 'run') {
  const plan = flag('--plan');
  if (plan && !existsSync(plan)) {
    process.stderr.write(`mcp-matrix: --plan: cannot read ${plan}\n`);
    process.exit(2);
  }
  const cell = flag('--cell');
  if ((process.env.FAKE_DIE ?? '').split(' ').includes(cell)) {
    process.stderr.write(`mcp-matrix: the runner died under cell ${cell} (fake)\n`);
    process.exit(3);
  }
  // A piece of a fan-out leaves the summary to merge; a job that runs the action alone writes it.
  process.stderr.write(`summary: ${process.env.MCP_MATRIX_PIECE === '1' ? 'left to merge' : 'written here'}\n`);
  for (const name of (process.env.FAKE_ENV_PROBE ?? '').split(' ').filter(Boolean))
    process.stderr.write(`env ${name}: ${process.env[name] === undefined ? 'unset' : `${process.env[name].split('\n').length} line(s)`}\n`);
  const out = flag('--out');
  mkdirSync(out, { recursive: true });
  const piece = path.join(dir, 'pieces', `${cell}.json`);
  copyFileSync(piece, path.join(out, 'results.json'));
  process.exit(JSON.parse(readFileSync(piece, 'utf8')).exitCode);
} else {
  const real = spawnSync(process.execPath, [process.env.REAL_MCP_MATRIX, command, ...args], { stdio: 'inherit' });
  process.exit(real.status ?? 1);
}
