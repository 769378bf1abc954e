// attestation.intoto.json: an in-toto Statement v1 binding the verdict to the tarball the cells installed
// (subject: its name and sha512, in hex), with results.json's sha256 over the bytes written beside it.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTESTATION_FILE, attestation, PREDICATE_TYPE, sriToHex, STATEMENT_TYPE } from '../../../src/reports/write/attestation.js';
import { writeReportFiles } from '../../../src/reports/write/write.js';
import { makeRun } from '../helpers/make-run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mm-attestation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tarballBytes = Buffer.from('the tarball the cells installed');
const sri = `sha512-${createHash('sha512').update(tarballBytes).digest('base64')}`;
const hex = createHash('sha512').update(tarballBytes).digest('hex');

function runWith(overrides: Parameters<typeof makeRun>[1] = {}) {
  const run = makeRun(undefined, overrides);
  return { ...run, plan: { ...run.plan, tarball: { file: '/tmp/run/acme-notes-mcp-0.3.0.tgz', size: tarballBytes.length, sha512: sri } } };
}

describe('the gate attestation', () => {
  it('is written beside the reports: subject the tarball (name, sha512 hex), predicate the verdict, plan hash and results.json digest', async () => {
    const run = runWith();
    const out = path.join(dir, 'out');
    const written = await writeReportFiles(run, out);
    expect(written.map((f) => path.basename(f))).not.toContain(ATTESTATION_FILE);
    const statement = JSON.parse(readFileSync(path.join(out, ATTESTATION_FILE), 'utf8')) as Record<string, unknown>;
    const resultsSha256 = createHash('sha256')
      .update(readFileSync(path.join(out, 'results.json')))
      .digest('hex');
    expect(statement).toEqual({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: 'acme-notes-mcp-0.3.0.tgz', digest: { sha512: hex } }],
      predicateType: PREDICATE_TYPE,
      predicate: {
        verdict: run.verdict,
        exitCode: run.exitCode,
        planHash: run.plan.configHash,
        results: { name: 'results.json', digest: { sha256: resultsSha256 } },
        package: run.plan.package,
        cells: run.cells.map((c) => ({ id: c.id, outcome: c.outcome })),
        harness: { name: 'mcp-matrix', version: expect.any(String) as string },
      },
    });
    expect(STATEMENT_TYPE).toBe('https://in-toto.io/Statement/v1');
  });

  it('says a failed verdict as it is: a release checks the verdict, not only the signature', () => {
    const failed = runWith({ verdict: 'failed', exitCode: 1 });
    expect(attestation(failed, '{}')?.predicate).toMatchObject({ verdict: 'failed', exitCode: 1 });
  });

  it('names the GitHub Actions run (and attempt) that made it', () => {
    const statement = attestation(runWith(), '{}', {
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/notes',
      GITHUB_RUN_ID: '42',
      GITHUB_RUN_ATTEMPT: '2',
    });
    expect(statement?.predicate.run).toBe('https://github.com/acme/notes/actions/runs/42/attempts/2');
    expect(statement?.predicate.results.digest.sha256).toBe(createHash('sha256').update('{}').digest('hex'));
  });

  it('binds only to a real sha512: none is written without one', () => {
    expect(sriToHex(sri)).toBe(hex);
    expect(sriToHex('sha512-short')).toBeUndefined();
    expect(sriToHex(`sha256-${createHash('sha256').update('x').digest('base64')}`)).toBeUndefined();
    expect(attestation(makeRun(), '{}')).toBeUndefined();
  });
});
