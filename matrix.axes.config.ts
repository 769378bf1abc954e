// The project's matrix with both axes: the 4 cells of matrix.config.ts, each driven by a pre-Streamable-HTTP
// 1.x client (1.9.0), the latest 1.x and the latest 2.x client, on every Node major the reference server's
// engines admit. `npm run matrix:axes` runs it; its evidence lives in reports/axes/.
import { defineConfig } from './src/index.js';
import base from './matrix.config.js';

export default defineConfig({
  ...base,
  clients: ['1.9.0', 'latest@1', 'latest@2'],
  node: ['20.19.0', 22, 24, 26],
});
