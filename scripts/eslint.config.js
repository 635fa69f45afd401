// Lint rules that guard what the compiler cannot: no floating promises; imports that point one way (api, site → orchestration → workflows → core → platform/db,
// activities → core, worker → everything below it); only orchestration/ holds the Temporal client (a few listed files aside); and nothing in workflows/ that
// breaks Temporal's sandbox (Node built-ins, network and database clients, activity code imported as values instead of types).
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

// The client's helpers; the client itself has a rule of its own (TEMPORAL_CLIENT_HOMES, below).
const TEMPORAL_CLIENT_HELPERS = ['@temporalio/common'];
const NO_ZOD =
  'zod is for database rows (sql.type in core/ and db/); HTTP schemas and settings are TypeBox (docs/architecture.md, "One schema library per job").';
const GROUND_FLOOR = {
  forbidden: ['api', 'site', 'core', 'activities', 'worker', 'workflows', 'orchestration', 'identity-provider'],
  why: 'platform/ and db/ are the ground floor: they know nothing of the domain or its callers.',
};
// The site (site/: the HTML pages people see) sits beside the API's resources on the shared HTTP
// plumbing of api/http/; the API reaches it only where the route table mounts its routes.
const SITE_MOUNT = 'api/route-table.ts';
const API = {
  forbidden: ['activities', 'worker', 'workflows', 'identity-provider'],
  packages: TEMPORAL_CLIENT_HELPERS,
  why: 'api/ is HTTP only: it calls core/, never activities, workflows, the worker or Temporal itself (orchestration/ does).',
};
const NOT_SITE = `api/ never imports site/ (the HTML pages people see): only ${SITE_MOUNT} mounts its routes; what both need lives in api/http/.`;
// Who may import whom. Each entry: the folders it governs, the folders they must not reach, and
// packages they must not import (a name, with the layer's reason, or a name with a reason of its own).
const LAYERS = [
  // The settings (platform/config/) are TypeBox: no zod on this side of the ground floor.
  { files: ['platform/**/*.ts'], ...GROUND_FLOOR, packages: [{ name: 'zod', message: NO_ZOD }] },
  { files: ['db/**/*.ts'], ...GROUND_FLOOR },
  {
    files: ['core/**/*.ts'],
    forbidden: ['api', 'site', 'activities', 'worker', 'workflows', 'orchestration', 'identity-provider'],
    packages: ['koa', 'find-my-way', 'koa-body', '@temporalio/activity', '@temporalio/worker', ...TEMPORAL_CLIENT_HELPERS],
    why: 'core/ is the domain: no HTTP, no activity or worker code, no Temporal (declare a port; orchestration/ implements it).',
  },
  { files: ['api/http/**/*.ts'], ...API, also: [{ folders: ['site'], why: NOT_SITE }] },
  // Routes never hold SQL: queries live in core/ (api/http/ keeps the few its plumbing needs); holding
  // no rows, they need no zod either: their schemas are TypeBox.
  {
    files: ['api/**/*.ts'],
    ignores: ['api/http/**', SITE_MOUNT],
    ...API,
    packages: [...API.packages, { name: 'zod', message: NO_ZOD }],
    sqlForbidden: true,
    also: [{ folders: ['site'], why: NOT_SITE }],
  },
  { files: [SITE_MOUNT], ...API, sqlForbidden: true },
  {
    files: ['site/**/*.ts'],
    forbidden: ['activities', 'worker', 'workflows', 'identity-provider'],
    packages: [...TEMPORAL_CLIENT_HELPERS, { name: 'zod', message: NO_ZOD }],
    why: 'site/ is the HTML pages people see: it calls core/ (and orchestration/), never activities, workflows, the worker or Temporal itself.',
    // Of api/ only its shared HTTP plumbing: a route of the API is no page's business, nor a page the API's.
    also: [{ folders: ['api'], except: ['api/http'], why: 'site/ uses only the shared HTTP plumbing of api/http/, never the routes of api/.' }],
    sqlForbidden: true,
  },
  {
    files: ['activities/**/*.ts'],
    forbidden: ['api', 'site', 'worker', 'identity-provider'],
    why: 'activities/ adapt core/ and external systems for workflows; they never reach the API or the worker.',
    sqlForbidden: true,
  },
  {
    files: ['orchestration/**/*.ts'],
    forbidden: ['api', 'site', 'activities', 'worker', 'identity-provider'],
    why: 'orchestration/ implements the ports of core/ with the Temporal client; it never reaches the API, activities or the worker.',
  },
  {
    files: ['worker/**/*.ts'],
    forbidden: ['api', 'site', 'identity-provider'],
    why: 'worker/ composes core/, activities/ and workflows/; it never reaches the API.',
  },
  {
    files: ['identity-provider/**/*.ts'],
    forbidden: ['api', 'site', 'activities', 'worker', 'workflows', 'orchestration'],
    why: 'The identity provider is its own process on the ground floor.',
  },
];

// The only files that may import @temporalio/client, each with its reason. Everything else that needs a
// workflow started, signalled or queried calls a named function of orchestration/ (the worker too:
// orchestration/schedules.ts, webhook-deliveries.ts, email-batches.ts, petitions.ts).
const TEMPORAL_CLIENT_HOMES = {
  'orchestration/**': 'the one module that starts, signals, updates and queries workflows',
  'worker/main.ts': "the worker's entry composes the process: it may open the connection it hands to orchestration/",
  'worker/create-worker.ts': "the worker's composition (its Worker is built on the connection worker/main.ts opens)",
  'platform/telemetry.ts': 'types the OpenTelemetry client interceptors that orchestration/client.ts installs (type only)',
  'scripts/start.ts': 'runs the development Temporal server and waits for it before starting the processes',
  'scripts/cluster.ts': "waits for the cluster's Temporal server and sets up its namespace and search attributes",
  'scripts/lib/temporal-dev-server.ts': 'starts the Temporal CLI dev server and waits until it answers',
  'scripts/lib/temporal-settings.ts': 'the operator side of Temporal: namespace, retention and search attributes, no workflows',
  'scripts/capture-histories.ts': 'lists finished workflows and downloads their histories into test/histories/',
  'scripts/bench/environment.ts': "waits for the bench's Temporal server",
  'scripts/bench/scenarios/process-memory.ts': "loads the worker with workflows of its own to measure the worker's memory",
  'test/support/workflows.ts': 'tests observe workflows through their handles and record their histories',
  'test/support/cluster-control.ts': 'waits for the Temporal server a test stopped to answer again',
  'test/support/shared-services.ts': "starts the tests' Temporal server and waits until it answers",
  'test/workflows/**': 'workflow tests start workflows themselves and read their handles, failures and histories',
};
const NO_TEMPORAL_CLIENT =
  'Only orchestration/ holds the Temporal client: call (or add) a named function of orchestration/; in core/, declare a port that orchestration/ implements.';

// `except`: subfolders of a forbidden folder that stay open (gitignore-style negations: the folder itself
// too, since a file cannot be let back in under a folder that is shut).
const layerPatterns = (folders, except = []) => [
  { group: [...folders.flatMap((folder) => [`**/${folder}/*`, `**/${folder}/**`]), ...except.flatMap((folder) => [`!**/${folder}`, `!**/${folder}/**`])] },
];
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
            ...(layer.packages ?? []).map((entry) => (typeof entry === 'string' ? { name: entry, message: layer.why } : entry)),
            ...(layer.sqlForbidden ? [{ name: 'slonik', importNames: ['sql', 'createSqlTag'], message: NO_SQL }] : []),
          ],
          patterns: [
            ...layerPatterns(layer.forbidden).map((pattern) => ({ ...pattern, message: layer.why })),
            ...(layer.also ?? []).flatMap((rule) => layerPatterns(rule.folders, rule.except).map((pattern) => ({ ...pattern, message: rule.why }))),
            ...(layer.sqlForbidden ? [{ group: ['**/db/sql.ts'], message: NO_SQL }] : []),
          ],
        },
      ],
    },
  })),
  // No function over 120 lines (the house style): a longer one holds parts that want names of their own.
  // Tests are left out: a describe block is a list of cases, not a function to read through.
  {
    files: ['**/*.ts'],
    ignores: ['test/**'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  // A rule of its own (typescript-eslint's twin of no-restricted-imports), so it adds to the layer rules
  // above instead of replacing them in the files both govern; type imports count too.
  {
    files: ['**/*.ts'],
    // workflows/ has its own rule, below, with the sandbox's reason.
    ignores: [...Object.keys(TEMPORAL_CLIENT_HOMES), 'workflows/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@temporalio/client', message: NO_TEMPORAL_CLIENT }], patterns: [{ group: ['@temporalio/client/*'], message: NO_TEMPORAL_CLIENT }] },
      ],
    },
  },
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
              group: ['../api/*', '../api/**', '../db/*', '../db/**', '../platform/*', '../platform/**', '../worker/**', '../site/**', '../orchestration/**'],
              message: WORKFLOW_CORE,
            },
            { group: ['../core/*/**', '!../core/petitions/transitions.ts'], allowTypeImports: true, message: WORKFLOW_CORE },
          ],
        },
      ],
    },
  },
);
