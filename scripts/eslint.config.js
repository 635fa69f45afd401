// Lint rules that guard what the compiler cannot: no floating promises anywhere; imports that point
// one way (api → orchestration → workflows → core → platform/db, activities → core, worker →
// everything below it; only orchestration/ holds the Temporal client); and nothing
// in workflows/ that would break Temporal's deterministic sandbox (Node built-ins, network and
// database clients, or activity code imported as values instead of types).
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'worker_threads',
  'zlib',
];

// Who may import whom. Each entry: the folders it governs, and the folders they must not reach.
const TEMPORAL_CLIENT = ['@temporalio/client', '@temporalio/common'];
const LAYERS = [
  {
    files: ['platform/**/*.ts', 'db/**/*.ts'],
    forbidden: ['api', 'core', 'activities', 'worker', 'workflows', 'orchestration', 'identity-provider'],
    why: 'platform/ and db/ are the ground floor: they know nothing of the domain or its callers.',
  },
  {
    files: ['core/**/*.ts'],
    forbidden: ['api', 'activities', 'worker', 'workflows', 'orchestration', 'identity-provider'],
    packages: ['koa', 'find-my-way', 'koa-body', '@temporalio/activity', '@temporalio/worker', ...TEMPORAL_CLIENT],
    why: 'core/ is the domain: no HTTP, no activity or worker code, no Temporal (declare a port; orchestration/ implements it).',
  },
  {
    files: ['api/http/**/*.ts'],
    forbidden: ['activities', 'worker', 'workflows', 'identity-provider'],
    packages: TEMPORAL_CLIENT,
    why: 'api/ is HTTP only: it calls core/, never activities, workflows, the worker or Temporal itself (orchestration/ does).',
  },
  {
    files: ['api/**/*.ts'],
    ignores: ['api/http/**'],
    forbidden: ['activities', 'worker', 'workflows', 'identity-provider'],
    packages: TEMPORAL_CLIENT,
    why: 'api/ is HTTP only: it calls core/, never activities, workflows, the worker or Temporal itself (orchestration/ does).',
    // Routes never hold SQL: queries live in core/ (api/http/ keeps the few its plumbing needs).
    sqlForbidden: true,
  },
  {
    files: ['activities/**/*.ts'],
    forbidden: ['api', 'worker', 'identity-provider'],
    why: 'activities/ adapt core/ and external systems for workflows; they never reach the API or the worker.',
    sqlForbidden: true,
  },
  {
    files: ['orchestration/**/*.ts'],
    forbidden: ['api', 'activities', 'worker', 'identity-provider'],
    why: 'orchestration/ implements the ports of core/ with the Temporal client; it never reaches the API, activities or the worker.',
  },
  { files: ['worker/**/*.ts'], forbidden: ['api', 'identity-provider'], why: 'worker/ composes core/, activities/ and workflows/; it never reaches the API.' },
  {
    files: ['identity-provider/**/*.ts'],
    forbidden: ['api', 'activities', 'worker', 'workflows', 'orchestration'],
    why: 'The identity provider is its own process on the ground floor.',
  },
];

const layerPatterns = (folders) => [{ group: folders.flatMap((folder) => [`**/${folder}/*`, `**/${folder}/**`]) }];
const WORKFLOW_CORE =
  'Workflows reach nothing with I/O: of core/ they import only core/vocabulary.ts, the pure transition table core/petitions/transitions.ts and types.';
const NO_SQL = 'Routes and activities never hold SQL: put the query in a core/ service or query module and call that.';

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
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='only']", message: 'No focused tests in main.' },
        { selector: "CallExpression[callee.property.name='skip']", message: 'No skipped tests in main.' },
      ],
    },
  },
  ...LAYERS.map((layer) => ({
    files: layer.files,
    ...(layer.ignores ? { ignores: layer.ignores } : {}),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...(layer.packages ?? []).map((name) => ({ name, message: layer.why })),
            ...(layer.sqlForbidden ? [{ name: 'slonik', importNames: ['sql', 'createSqlTag'], message: NO_SQL }] : []),
          ],
          patterns: [
            ...layerPatterns(layer.forbidden).map((pattern) => ({ ...pattern, message: layer.why })),
            ...(layer.sqlForbidden ? [{ group: ['**/db/sql.ts'], message: NO_SQL }] : []),
          ],
        },
      ],
    },
  })),
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...NODE_BUILTINS.flatMap((name) => [name, `node:${name}`]),
            'undici',
            'pg',
            'slonik',
            'zod',
            '@temporalio/client',
            '@temporalio/worker',
            '@temporalio/activity',
          ].map((name) => ({
            name,
            message: 'Workflow code runs in a deterministic sandbox: no I/O, no Node built-ins. Call an activity instead.',
          })),
          patterns: [
            {
              group: ['../activities/*', '../activities/**'],
              allowTypeImports: true,
              message: 'Import activities with `import type` and call them through proxyActivities.',
            },
            {
              group: ['../api/*', '../api/**', '../db/*', '../db/**', '../platform/*', '../platform/**', '../worker/**', '../orchestration/**'],
              message: WORKFLOW_CORE,
            },
            { group: ['../core/*/**', '!../core/petitions/transitions.ts'], allowTypeImports: true, message: WORKFLOW_CORE },
          ],
        },
      ],
    },
  },
);
