#!/usr/bin/env node
// main() is the CLI's error boundary, but loading the CLI can fail before it exists: out of file descriptors
// (a low `ulimit -n`), memory or disk, or a copy that was never built. None of that is a verdict on a server, so it
// exits 3 (not measured) with its cause, never 1 with Node's raw stack. The logger is not loaded yet: this writes.
const CAUSES = {
  EMFILE: 'too many open files (the per-process limit, ulimit -n)',
  ENFILE: 'too many open files (the system-wide limit)',
  ENOMEM: 'out of memory',
};

// Below its engines floor the CLI fails on a missing API, far from the cause: say the cause, and where Node goes.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(
    `mcp-matrix: harness error: mcp-matrix needs Node >=20.19; this is ${process.versions.node}. Run it on a newer Node; ` +
      'to test a server on this one, add it to the config as a Node axis (docs/config.md).\n',
  );
  process.exit(3);
}

let cli;
try {
  cli = await import('../dist/bundle/cli.js');
} catch (error) {
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const cause = code && CAUSES[code] ? `${CAUSES[code]} (${code}): ` : '';
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  process.stderr.write(
    `mcp-matrix: harness error: could not load the harness itself: ${cause}${message}` +
      (code === 'ERR_MODULE_NOT_FOUND' ? ' (a limit on open files reads as a missing module; otherwise build it: npm run build)' : '') +
      '\n',
  );
  process.exit(3);
}

process.exitCode = await cli.main(process.argv.slice(2));
