// Temporal: which cluster, how to reach it securely, the dev server `npm start` runs, and the worker.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { duration, flag, hostPort, integer, text } from './variables.ts';

const FROM_TEMPORAL_YAML = 'from `temporal.yaml`';
const PEM = 'PEM text or a path to a PEM file';

export const temporalVariables = {
  TEMPORAL_ADDRESS: Type.Optional(
    hostPort({
      defaultText: 'a dev server started by `npm start` on `127.0.0.1:7233`, UI on `:8233`',
      description: '`host:port` of an existing Temporal frontend. `npm run api` and `worker` require it.',
    }),
  ),
  TEMPORAL_NAMESPACE: text({ default: 'default', description: 'namespace the API starts workflows in and the worker polls' }),
  RALLY_TASK_QUEUE: text({ default: 'rally', description: 'task queue shared by API and worker' }),
  TEMPORAL_TLS_CERT: Type.Optional(
    text({ description: `client certificate for mTLS (Temporal Cloud or a TLS cluster): ${PEM}; set together with \`TEMPORAL_TLS_KEY\`` }),
  ),
  TEMPORAL_TLS_KEY: Type.Optional(text({ description: `private key of that certificate: ${PEM}; set together with \`TEMPORAL_TLS_CERT\`` })),
  TEMPORAL_API_KEY: Type.Optional(text({ description: 'API key for Temporal Cloud (turns TLS on)' })),
  TEMPORAL_TLS_CA: Type.Optional(text({ description: `a private CA (${PEM}), for self-hosted TLS clusters (turns TLS on)` })),
  TEMPORAL_TLS_SERVER_NAME: Type.Optional(text({ description: 'the TLS server name, for self-hosted TLS clusters (turns TLS on)' })),
  TEMPORAL_TLS: flag({ default: false, description: '`true` turns TLS on with the system CAs' }),
  RALLY_TEMPORAL_DEV_PORT: Type.Optional(
    integer(65_535, { defaultText: FROM_TEMPORAL_YAML, description: "`npm start` only: the dev server's port, overriding `temporal.yaml`" }),
  ),
  RALLY_TEMPORAL_UI_PORT: Type.Optional(
    integer(65_535, { defaultText: FROM_TEMPORAL_YAML, description: "`npm start` only: the dev server's Web UI port, overriding `temporal.yaml`" }),
  ),
  RALLY_TEMPORAL_DB_FILE: Type.Optional(
    text({ defaultText: FROM_TEMPORAL_YAML, description: "`npm start` only: the dev server's state file, overriding `temporal.yaml`" }),
  ),
  RALLY_WORKFLOW_BUNDLE: Type.Optional(
    text({
      defaultText: '`dist/workflow-bundle.js` in production, unset otherwise',
      description:
        'a workflow bundle prepared by `npm run build:workflows`; the worker starts from it instead of ' +
        'bundling with webpack (when the file is missing it bundles, and logs so)',
    }),
  ),
  RALLY_WORKER_SHUTDOWN_GRACE: duration('RALLY_WORKER_SHUTDOWN_GRACE', {
    default: '10s',
    description: 'after SIGTERM, running activities may finish for this long; then they are cancelled and retried elsewhere',
  }),
  RALLY_WORKER_CACHED_WORKFLOWS: Type.Optional(
    integer(100_000, {
      defaultText: "the Temporal SDK's, from the heap limit (about 2,400 with a 4 GB heap)",
      description:
        'workflows a worker keeps in memory between their tasks, about half a MB each; an evicted one is replayed from its history at its ' +
        'next task. Fewer save memory and cost throughput under load (docs/performance.md)',
    }),
  ),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof temporalVariables>>>;

export function temporalSettings(values: Values, mode: Config['nodeEnv']) {
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_SERVER_NAME: serverName } = values;
  // A certificate pair (mTLS, e.g. Temporal Cloud), an API key, a CA, a server name or TEMPORAL_TLS=true
  // each turn TLS on, with the system's CAs unless TEMPORAL_TLS_CA is set.
  const tlsOn = cert || ca || serverName || values.TEMPORAL_API_KEY || values.TEMPORAL_TLS;
  return {
    temporal: Object.freeze({
      address: values.TEMPORAL_ADDRESS,
      namespace: values.TEMPORAL_NAMESPACE,
      taskQueue: values.RALLY_TASK_QUEUE,
      tls: tlsOn ? Object.freeze({ cert, key, ca, serverName }) : undefined,
      apiKey: values.TEMPORAL_API_KEY,
    }),
    temporalDevServer: Object.freeze({ port: values.RALLY_TEMPORAL_DEV_PORT, uiPort: values.RALLY_TEMPORAL_UI_PORT, dbFile: values.RALLY_TEMPORAL_DB_FILE }),
    // Production starts from the prepared bundle when there is one; development bundles the code it has.
    workflowBundlePath: values.RALLY_WORKFLOW_BUNDLE ?? (mode === 'production' ? 'dist/workflow-bundle.js' : undefined),
    workerGraceMs: values.RALLY_WORKER_SHUTDOWN_GRACE,
    workerCachedWorkflows: values.RALLY_WORKER_CACHED_WORKFLOWS,
  } satisfies Partial<Config> & { workerGraceMs: number };
}
