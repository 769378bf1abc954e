// The SDK majors the harness knows how to install: design.md's pin → install-set mapping, as data.
import type { MajorRecipe } from './define.js';

/** A config may override any major or add one under `majors`. */
export const DEFAULT_MAJORS: Record<string, MajorRecipe> = {
  '1': { pinned: ['@modelcontextprotocol/sdk'] },
  '2': {
    pinned: ['@modelcontextprotocol/server', '@modelcontextprotocol/client'],
    companions: [{ name: '@modelcontextprotocol/node', peerOf: '@modelcontextprotocol/server' }],
  },
};

/** The client package of each major: what a `clients` pin installs (the driver's adapter loads it). */
export const CLIENT_PACKAGES: Record<string, string> = {
  '1': '@modelcontextprotocol/sdk',
  '2': '@modelcontextprotocol/client',
};

const ROLE = /^(?:latest|floor)@(\d+)$/;
const EXACT = /^(\d+)\.\d+\.\d+/;

/** The SDK major a pin names, or undefined for `floor` (any major the package declares). */
export function pinMajor(pin: string): string | undefined {
  return ROLE.exec(pin)?.[1] ?? EXACT.exec(pin)?.[1]?.replace(/^0+(?=\d)/, '');
}
