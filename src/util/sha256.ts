// One spelling of the sha256 hex digest that caches, keys and the environment record (a lockfile, a config),
// so that a hash stored by one module is compared by another with the same function.
import { createHash } from 'node:crypto';

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
