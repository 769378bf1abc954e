// The harness's own version, read once from its package.json.
import { readFileSync } from 'node:fs';

export const HARNESS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
