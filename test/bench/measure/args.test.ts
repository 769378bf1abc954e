// The bench's default naive loop: beside the checkout, or beside the main checkout of a git worktree.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultNaiveLoop } from '../../../bench/measure/args.js';

let tmp: string | undefined;
afterAll(async () => tmp && (await rm(tmp, { recursive: true, force: true })));

describe('defaultNaiveLoop', () => {
  it('finds ../shared beside the checkout, else beside the main checkout of a worktree', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'mm-bench-args-'));
    const loop = path.join(tmp, 'shared', 'bench', 'naive-loop', 'naive-loop.sh');
    mkdirSync(path.dirname(loop), { recursive: true });
    writeFileSync(loop, '#!/bin/bash\n');
    mkdirSync(path.join(tmp, 'main', '.git', 'worktrees', 'me'), { recursive: true });
    mkdirSync(path.join(tmp, 'wt', 'me'), { recursive: true });
    writeFileSync(path.join(tmp, 'wt', 'me', '.git'), `gitdir: ${path.join(tmp, 'main', '.git', 'worktrees', 'me')}\n`);
    expect(defaultNaiveLoop(path.join(tmp, 'main'))).toBe(loop);
    expect(defaultNaiveLoop(path.join(tmp, 'wt', 'me'))).toBe(loop);
    // Nowhere to be found: the path beside the checkout, which the bench names when it skips the loop.
    expect(defaultNaiveLoop(path.join(tmp, 'main', 'sub'))).toBe(path.join(tmp, 'main', 'shared', 'bench', 'naive-loop', 'naive-loop.sh'));
  });
});
