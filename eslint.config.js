// Lint: typescript-eslint's recommended rules; in src/ only logger.ts may print (reporters render strings,
// the logger writes them; the in-cell driver, its own program, writes its log to its stderr); the driver and
// the harness import each other only across the boundary in scripts/lint/driver-boundary.js.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundary from './scripts/lint/driver-boundary.js';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'fixtures/broken/sdk-bundled/bin/**',
      'coverage/**',
      'matrix-results/**',
      'cells/**',
      'bench/results/**',
      'bench/.build/**',
      '**/node_modules/**',
      '.stryker-tmp/**',
      'reports/mutation/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        Buffer: 'readonly',
        setImmediate: 'readonly',
        structuredClone: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  { files: ['src/**/*.ts'], plugins: { 'mcp-matrix': boundary }, rules: { 'mcp-matrix/driver-boundary': 'error' } },
  {
    // The library under the CLI: api/ never imports the CLI's commands or its shell.
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/commands/*', '**/cli/*', '**/cli.js'],
              message: 'api/ is the library the CLI is built on: it never imports commands/ or cli/.',
            },
          ],
        },
      ],
    },
  },
  { files: ['test/**', 'fixtures/**', 'bench/**', 'examples/**', 'src/logger.ts'], rules: { 'no-console': 'off' } },
);
