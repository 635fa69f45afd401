// Lint rules that guard what the compiler cannot: no floating promises anywhere, and nothing in
// workflows/ that would break Temporal's deterministic sandbox (Node built-ins, network and database
// clients, or activity code imported as values instead of types).
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'worker_threads', 'zlib'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'dist/**', 'bench-results/**', 'scripts/**/*.mjs', 'bin/**/*.js', 'scripts/eslint.config.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: new URL('..', import.meta.url).pathname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='only']", message: 'No focused tests in main.' }, { selector: "CallExpression[callee.property.name='skip']", message: 'No skipped tests in main.' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS.flatMap((name) => [name, `node:${name}`]), 'undici', 'pg', 'slonik', 'zod', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'].map((name) => ({
            name,
            message: 'Workflow code runs in a deterministic sandbox: no I/O, no Node built-ins. Call an activity instead.',
          })),
          patterns: [
            { group: ['../activities/*', '../activities/**'], allowTypeImports: true, message: 'Import activities with `import type` and call them through proxyActivities.' },
            { group: ['../api/*', '../api/**', '../db/*', '../db/**'], message: 'Workflows must not reach the API or the database directly.' },
          ],
        },
      ],
    },
  },
);
