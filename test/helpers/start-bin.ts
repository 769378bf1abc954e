// A package's bin started as a user starts it (node, the bin file; a PnP cell's hooks in NODE_OPTIONS), sent
// initialize over stdio: its first line of output, or its exit and stderr.
import { spawn } from 'node:child_process';

export function initializeBin(
  bin: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin], { stdio: ['pipe', 'pipe', 'pipe'], ...options });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('\n')) child.stdin.end();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
  );
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
