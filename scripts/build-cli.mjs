// The CLI as one bundle (dist/bundle/cli.js and its lazily loaded chunks), what bin/mcp-matrix.js loads. Node
// resolves, reads and links every ES module file on its own: the ~150 compiled files and the dependencies' own
// small files (execa, zod, ajv, listr2) cost ~0.3 CPU-s of start-up on every CLI run, a bundle ~0.1
// (docs/performance.md). dist/*.js stays as tsc writes it: the public API (dist/index.js, what a config imports)
// and the types. jiti stays outside: it loads Babel only when a config needs a transpile.
// The bundle sits one folder below dist/, as the compiled modules that find files beside them do
// (config/doc-path.ts, config/self.ts, cells/driver-ship.ts); version.ts looks upward.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const outdir = fileURLToPath(new URL('dist/bundle/', root));
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [fileURLToPath(new URL('dist/cli.js', root))],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['jiti'],
  // CommonJS dependencies (ajv, semver) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __mmCreateRequire } from 'node:module';\nconst require = __mmCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
