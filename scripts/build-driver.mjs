// The in-cell driver is its own program: its package.json (src/driver/package.json) goes into
// dist/driver next to the compiled files, and the harness ships that directory into each cell.
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
copyFileSync(fileURLToPath(new URL('src/driver/package.json', root)), fileURLToPath(new URL('dist/driver/package.json', root)));
