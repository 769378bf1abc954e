// The undeclared-import check on a real install: the fixture's tarball, packed by npm, installed with SDK 1.x from the
// registry. Its bin imports zod, which it does not declare; under npm the import resolves (the SDK brought zod along).
// The fixture whose dependency imports zod undeclared passes here: the check reads the package's own files, and
// under npm its server starts (the strict legs' tests show it does not there).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCellLock } from '../../../src/judge/environment/cell-lock.js';
import { judgeImports } from '../../../src/judge/environment/undeclared-imports.js';
import { resolveChecks } from '../../../src/config/resolve.js';
import { INSTALL_SETS, ROOT, npmInstall, npmPack, removeDir, tempDir } from '../../driver/helpers/cell.js';
import { phaseBench, type PhaseBench } from '../../driver/helpers/phase-bench.js';
import { stdioOnBin } from '../../helpers/start-bin.js';

/** Both checks at their defaults, as the harness resolves them. */
const DEFAULTS = resolveChecks('environment', 'none', {});

const FIXTURE = join(ROOT, 'fixtures/broken/undeclared-import');
const DEPENDENCY = join(ROOT, 'fixtures/broken/dependency-undeclared-import');
let work: string | undefined;
let bench: PhaseBench | undefined;
let cell = '';

beforeAll(async () => {
  work = tempDir('mm-undeclared-');
  const tarball = await npmPack(FIXTURE, work);
  cell = join(work, 'cell');
  mkdirSync(cell);
  writeFileSync(join(cell, 'package.json'), JSON.stringify({ name: 'cell', private: true }));
  // Both fixtures in one install: each package's check reads only its own files.
  await npmInstall(cell, [tarball, await npmPack(DEPENDENCY, work), ...INSTALL_SETS[1]!]);
  bench = await phaseBench('mm-undeclared-stdio-');
}, 300_000);
afterAll(async () => {
  await bench?.dispose();
  removeDir(work);
});

describe('undeclared-imports on the installed fixture', () => {
  it('fails, naming the import, the file and line, and the dependency that brought it', async () => {
    const checks = await judgeImports({
      cellDir: cell,
      packageName: 'broken-undeclared-import',
      key: 'fixture',
      levels: DEFAULTS,
      lock: await readCellLock(cell),
    });
    const check = checks.find((c) => c.id === 'undeclared-imports')!;
    expect(check).toMatchObject({ outcome: 'failed', level: 'require', short: 'undeclared: zod', step: 'undeclared imports' });
    expect(check.message).toMatch(
      /^imports 1 package\(s\) on its start path that it does not declare in dependencies, peerDependencies or optionalDependencies: zod \(import "zod" in bin\/server\.js:9; npm's flat tree has it only through @modelcontextprotocol\/sdk@1\.32\.2[^)]*\): a strict install/,
    );
    expect(check.evidence).toEqual({
      undeclared: [
        expect.objectContaining({ package: 'zod', sites: [{ file: 'bin/server.js', line: 9, kind: 'import', specifier: 'zod' }] }),
      ],
    });
    // The SDK's own imports are its business: only the package's own files are read.
    expect(checks.find((c) => c.id === 'undeclared-dynamic-imports')).toMatchObject({ outcome: 'passed', level: 'warn' });
  });

  it('passes once zod is declared (the same install, the manifest fixed in place)', async () => {
    const manifestFile = join(cell, 'node_modules/broken-undeclared-import/package.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, dependencies: { zod: '^4.0.0' } }));
    const checks = await judgeImports({
      cellDir: cell,
      packageName: 'broken-undeclared-import',
      key: 'fixture-fixed',
      levels: DEFAULTS,
      lock: await readCellLock(cell),
    });
    expect(checks.map((c) => [c.id, c.outcome])).toEqual([
      ['undeclared-imports', 'passed'],
      ['undeclared-dynamic-imports', 'passed'],
    ]);
  });

  it("passes for the package whose dependency imports zod undeclared; under npm's flat tree its stdio phase passes", async () => {
    const name = 'broken-dependency-undeclared-import';
    const checks = await judgeImports({
      cellDir: cell,
      packageName: name,
      key: 'dependency',
      levels: DEFAULTS,
      lock: await readCellLock(cell),
    });
    expect(checks.map((c) => [c.id, c.outcome])).toEqual([
      ['undeclared-imports', 'passed'],
      ['undeclared-dynamic-imports', 'passed'],
    ]);
    const packageDir = join(cell, 'node_modules', name);
    const stdio = await stdioOnBin(bench!, { cellDir: cell, packageDir, bin: join(packageDir, 'bin/server.js') });
    expect(stdio).toMatchObject({ phase: 'stdio', verdict: 'passed', details: { surface: { tools: ['echo', 'add'] } } });
  });
});
