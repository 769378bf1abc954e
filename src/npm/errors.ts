// Why npm failed, in npm's own words: its structured --json error and its stderr, reduced to a code, whether
// the network failed, and the lines that name the cause (machine-cause.ts tells the machine's faults apart).

const NETWORK_CODES =
  /^(ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|EPIPE|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNABORTED|E5\d\d|E429|E408|FETCH_ERROR)$/;

export function classifyNpmError(stderr: string, stdout = ''): { code: string; network: boolean; message: string } {
  const code =
    npmJsonError(stdout)?.code ??
    /npm (?:error|ERR!) code (\S+)/.exec(stderr)?.[1] ??
    /\b(E[A-Z0-9_]{3,})\b/.exec(stderr.replace(/^npm warn.*$/gm, ''))?.[1] ??
    'UNKNOWN';
  const errno = /npm (?:error|ERR!) errno (\S+)/.exec(stderr)?.[1];
  const network =
    NETWORK_CODES.test(code) ||
    (errno !== undefined && NETWORK_CODES.test(errno)) ||
    (/network|socket hang up|timed out/i.test(stderr) && code === 'UNKNOWN');
  const lines = stderr
    .split('\n')
    .filter((l) => !/^npm warn/i.test(l))
    .map((l) => l.replace(/^npm (?:error|ERR!) ?/, '').trim())
    .filter((l) => l && !/^(code|errno|syscall|path|A complete log|Log files were not written|at \S+ \(|$)/.test(l));
  // ERESOLVE: the conflicting requirement comes after "Could not resolve dependency:", past the first lines; name it first.
  const conflict = lines.findIndex((l) => /^Could not resolve dependency:?$/.test(l));
  if (conflict >= 0 && lines[conflict + 1]) lines.splice(1, 0, `${lines[conflict + 1]} conflicts with what the cell pins`);
  return { code, network, message: lines.slice(0, 6).join(' · ') || `npm failed (${code})` };
}

/** npm's structured error (`--json` prints `{ "error": { code, summary, detail } }` on stdout). */
export function npmJsonError(stdout: string): { code?: string; summary?: string } | undefined {
  const start = stdout.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(stdout.slice(start)) as { error?: { code?: unknown; summary?: unknown } };
    const e = parsed.error;
    if (!e || typeof e !== 'object') return undefined;
    return {
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.summary === 'string' ? { summary: e.summary } : {}),
    };
  } catch {
    return undefined;
  }
}
