// The in-cell driver is its own program: its package.json (src/driver/package.json) goes into
// dist/driver next to the compiled files, and into dist/contract (the contract it imports, shipped beside it):
// the harness ships both directories into each cell, whose own package.json has no "type".
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
for (const dir of ['driver', 'contract'])
  copyFileSync(fileURLToPath(new URL('src/driver/package.json', root)), fileURLToPath(new URL(`dist/${dir}/package.json`, root)));
