import { describe, expect, test } from 'vitest';
import { absenceContext, absenceWarning, absentSecrets, runSecrets, secretEnv, secretGaps, secretValues } from '../../src/judge/secrets.js';
import type { SecretSpec } from '../../src/contract/config.js';

const all: SecretSpec['phases'] = ['stdio', 'http', 'bind', 'conformance', 'leaks'];
const KEY: SecretSpec = { name: 'API_KEY', phases: all, whenAbsent: 'not-measured' };
const HTTP_ONLY: SecretSpec = { name: 'HTTP_SECRET', phases: ['http'], whenAbsent: 'skipped' };
const gh = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request', GITHUB_ACTOR: 'alice' };

describe('absentSecrets / secretEnv / secretValues', () => {
  test('unset and empty both count as absent; a present one is given only to the phases that need it', () => {
    expect(absentSecrets([KEY, HTTP_ONLY], { API_KEY: '', HTTP_SECRET: 'x' }).map((s) => s.name)).toEqual(['API_KEY']);
    expect(absentSecrets([KEY, HTTP_ONLY], {}).map((s) => s.name)).toEqual(['API_KEY', 'HTTP_SECRET']);
    const env = { API_KEY: 'k-123456789', HTTP_SECRET: 'h-123456789', OTHER: 'o' };
    expect(secretEnv([KEY, HTTP_ONLY], 'stdio', env)).toEqual({ API_KEY: 'k-123456789' });
    expect(secretEnv([KEY, HTTP_ONLY], 'http', env)).toEqual({ API_KEY: 'k-123456789', HTTP_SECRET: 'h-123456789' });
    expect(secretEnv([KEY], 'http', {})).toEqual({});
    expect(secretValues([KEY, HTTP_ONLY], { API_KEY: 'k-123456789' })).toEqual(['k-123456789']);
  });
});

describe('absenceContext', () => {
  test('off GitHub it says nothing more', () => {
    expect(absenceContext({ GITHUB_EVENT_NAME: 'pull_request' }, { pull_request: { head: { repo: { fork: true } } } })).toBe('');
  });
  test('a fork pull request (fork flag, another repository, or a deleted fork) is named, with the fork', () => {
    expect(absenceContext(gh, { pull_request: { head: { repo: { fork: true, full_name: 'bob/server' } } } })).toBe(
      'this run is a pull request from a fork (bob/server), and GitHub gives fork pull requests no secrets',
    );
    expect(
      absenceContext(gh, {
        pull_request: { head: { repo: { fork: false, full_name: 'bob/server' } }, base: { repo: { full_name: 'acme/server' } } },
      }),
    ).toContain('from a fork (bob/server)');
    expect(absenceContext(gh, { pull_request: { head: { repo: null } } })).toContain('from a fork,');
  });
  test('a same-repository pull request, a push and a missing payload are not forks', () => {
    const same = {
      pull_request: { head: { repo: { fork: false, full_name: 'acme/server' } }, base: { repo: { full_name: 'acme/server' } } },
    };
    expect(absenceContext(gh, same)).toBe('');
    expect(absenceContext({ ...gh, GITHUB_EVENT_NAME: 'push' }, { pull_request: { head: { repo: { fork: true } } } })).toBe('');
    expect(absenceContext(gh, undefined)).toBe('');
  });
  test('Dependabot is named whatever the event', () => {
    expect(absenceContext({ ...gh, GITHUB_ACTOR: 'dependabot[bot]', GITHUB_EVENT_NAME: 'push' }, undefined)).toContain('Dependabot');
  });
});

describe('secretGaps', () => {
  test('each phase a missing secret needs is not measured, naming the secret and why; the others are untouched', () => {
    const gaps = secretGaps([KEY], 'this run is a pull request from a fork, and GitHub gives fork pull requests no secrets', 'fail');
    expect([...gaps.keys()]).toEqual(all);
    expect(gaps.get('stdio')).toEqual({
      phase: 'stdio',
      verdict: 'not-measured',
      durationMs: 0,
      step: 'secrets',
      message:
        'not run: secret API_KEY is not set (this run is a pull request from a fork, and GitHub gives fork pull requests no secrets); the config says this phase needs it, so it was not measured',
    });
    const http = secretGaps([HTTP_ONLY], '');
    expect([...http.keys()]).toEqual(['http']);
    expect(http.get('http')?.verdict).toBe('skipped');
    expect(http.get('http')?.message).toContain("is not set (in this run's environment; in CI, give it to the run step's env:)");
    expect(http.get('http')?.message).toContain('(whenAbsent: skipped)');
  });
  test('skipped only when every missing secret of the phase allows it; two names read as plural', () => {
    const both = secretGaps([KEY, HTTP_ONLY], '').get('http');
    expect(both?.verdict).toBe('not-measured');
    expect(both?.message).toMatch(/secret API_KEY, HTTP_SECRET are not set .* needs them/);
  });
  test("a fork's or Dependabot's run under the default policy: skipped (the gate passes on the rest), NOT MEASURED said plainly", () => {
    for (const context of [
      'this run is a pull request from a fork, and GitHub gives fork pull requests no secrets',
      'this run was triggered by Dependabot, and GitHub gives Dependabot runs only the Dependabot secrets',
    ]) {
      const stdio = secretGaps([KEY], context).get('stdio')!;
      expect(stdio.verdict).toBe('skipped');
      expect(stdio.message).toBe(
        `NOT MEASURED: secret API_KEY is not set (${context}); the config says this phase needs it. secretsOnFork: 'not-measured' lets this run pass on the phases it measured; the run on the base repository measures this one`,
      );
      // 'fail': the phase is not measured, so the run is (exit 3) and the gate fails.
      expect(secretGaps([KEY], context, 'fail').get('stdio')?.verdict).toBe('not-measured');
    }
    // Not a fork's run (a push without the secret): the policy does not apply.
    expect(secretGaps([KEY], '').get('stdio')?.verdict).toBe('not-measured');
    // Two secrets on a fork's run: plural there too.
    expect(secretGaps([KEY, HTTP_ONLY], 'from a fork').get('http')?.message).toMatch(
      /^NOT MEASURED: secret API_KEY, HTTP_SECRET are not set \(from a fork\); the config says this phase needs them\./,
    );
  });
  test('no missing secret: no gap', () => {
    expect(secretGaps([], 'x').size).toBe(0);
  });
});

describe('absenceWarning', () => {
  test('names each secret with its phases, the context and what the phases read as', () => {
    expect(absenceWarning([], '')).toBeUndefined();
    expect(absenceWarning([KEY], 'ctx', 'fail')).toBe(
      'secret(s) not set: API_KEY (stdio, http, bind, conformance, leaks): ctx. Those phases are not run, and read as not measured, never failed.',
    );
    expect(absenceWarning([KEY], '')).toBe(
      'secret(s) not set: API_KEY (stdio, http, bind, conformance, leaks). Those phases are not run, and read as not measured, never failed.',
    );
    expect(absenceWarning([KEY], 'ctx')).toBe(
      "secret(s) not set: API_KEY (stdio, http, bind, conformance, leaks): ctx. Those phases are not run, and read as not measured, and the gate passes on the rest (secretsOnFork: 'not-measured'), never failed.",
    );
    expect(absenceWarning([HTTP_ONLY], '')).toBe(
      'secret(s) not set: HTTP_SECRET (http). Those phases are not run, and read as skipped, never failed.',
    );
  });
});

describe('secrets: edges of the GitHub context and the run’s view', () => {
  test('a pull request from a fork flagged without a name, one from another repository without a base, pull_request_target', () => {
    expect(absenceContext(gh, { pull_request: { head: { repo: { fork: true } } } })).toBe(
      'this run is a pull request from a fork, and GitHub gives fork pull requests no secrets',
    );
    for (const base of [undefined, {}])
      expect(absenceContext(gh, { pull_request: { head: { repo: { full_name: 'bob/server' } }, ...(base ? { base } : {}) } })).toContain(
        'from a fork (bob/server)',
      );
    const target = { ...gh, GITHUB_EVENT_NAME: 'pull_request_target' };
    expect(absenceContext(target, { pull_request: { head: { repo: { fork: true } } } })).toContain('from a fork');
  });

  test('a payload without a head, or GitHub without an event name, is no fork', () => {
    expect(absenceContext(gh, { pull_request: {} })).toBe('');
    expect(absenceContext({ GITHUB_ACTIONS: 'true' }, { pull_request: { head: { repo: { fork: true } } } })).toBe('');
  });

  test('the warning lists every absent secret; the phases read as skipped only when every one allows it', () => {
    expect(absenceWarning([KEY, HTTP_ONLY], '')).toBe(
      'secret(s) not set: API_KEY (stdio, http, bind, conformance, leaks); HTTP_SECRET (http). Those phases are not run, and read as not measured, never failed.',
    );
  });

  test('runSecrets: the gaps and warning with the fork named, each phase’s own secrets, every value masked', () => {
    const fork = { pull_request: { head: { repo: { fork: true, full_name: 'bob/server' } } } };
    const run = runSecrets([KEY, HTTP_ONLY], { ...gh, HTTP_SECRET: 'h-123456789' }, fork);
    expect([...run.gaps.keys()]).toEqual(all);
    expect(run.gaps.get('http')?.message).toContain('(this run is a pull request from a fork (bob/server)');
    expect(run.warning).toBe(
      "secret(s) not set: API_KEY (stdio, http, bind, conformance, leaks): this run is a pull request from a fork (bob/server), and GitHub gives fork pull requests no secrets. Those phases are not run, and read as not measured, and the gate passes on the rest (secretsOnFork: 'not-measured'), never failed.",
    );
    expect(run.env('http')).toEqual({ HTTP_SECRET: 'h-123456789' });
    expect(run.env('stdio')).toEqual({});
    expect(run.mask).toEqual(['h-123456789']);
    const present = runSecrets([KEY], { ...gh, API_KEY: 'k-123456789' }, fork);
    expect(present.gaps.size).toBe(0);
    expect(present).not.toHaveProperty('warning');
    expect(present.env('leaks')).toEqual({ API_KEY: 'k-123456789' });
  });
});
