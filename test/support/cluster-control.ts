// What a test may do to the cluster `npm run test:cluster` runs it on (scripts/test-cluster.ts): SIGKILL the Temporal server, which the cluster's supervisor
// restarts, and restart the PostgreSQL of that run (its own, never the machine's shared one) with `pg_ctl restart -m fast`. Undefined under `npm test`, where
// tests start and kill their own dev server instead (killableTemporal).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { restartPostgres } from '../../scripts/lib/private-postgres.ts';
import { startTemporalDevServer, startTemporalDevServerOnFreePorts, type TemporalDevServer } from '../../scripts/lib/temporal-dev-server.ts';
import { loadTemporalSettings } from '../../scripts/lib/temporal-settings.ts';
import { testEnvironment } from './environment.ts';
import { eventually } from './events.ts';

export type ClusterControl = Readonly<{
  temporalAddress: string;
  /** SIGKILL, no chance to clean up; resolves at once (see waitForTemporalServer). */
  killTemporalServer(): Promise<void>;
  /** Resolves once the supervisor's restart of the server answers on the frontend again. */
  waitForTemporalServer(): Promise<void>;
  restartPostgres(): Promise<void>;
}>;

async function readPid(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8')).trim());
}

export function clusterControl(env: NodeJS.ProcessEnv = process.env): ClusterControl | undefined {
  const temporalAddress = env.RALLY_TEST_TEMPORAL_ADDRESS;
  const pidFile = env.RALLY_TEST_TEMPORAL_PID_FILE;
  const dataDir = env.RALLY_TEST_POSTGRES_DATA_DIR;
  if (!temporalAddress || !pidFile || !dataDir) return undefined;
  let killedPid: number | undefined;
  return {
    temporalAddress,
    async killTemporalServer() {
      killedPid = await readPid(pidFile);
      process.kill(killedPid, 'SIGKILL');
    },
    async waitForTemporalServer() {
      await eventually(
        async () => ((await readPid(pidFile).catch(() => killedPid)) !== killedPid ? true : undefined),
        120_000,
        'the Temporal server restarted',
      );
      await eventually(
        async () => {
          const connection = await Connection.connect({ address: temporalAddress, connectTimeout: 2_000 }).catch(() => undefined);
          if (!connection) return undefined;
          try {
            return await connection.workflowService.getSystemInfo({}).then(
              () => true,
              () => undefined,
            );
          } finally {
            await connection.close();
          }
        },
        120_000,
        'the restarted Temporal server answering',
      );
    },
    restartPostgres: () => restartPostgres(dataDir),
  };
}

/** The Temporal server the test kills: its own dev server, or the cluster's (restarted by the cluster). */
export type KillableTemporal = { address: string; namespace: string; kill(): Promise<void>; restart(): Promise<void>; stop(): Promise<void> };

async function ownDevServer(directory: string): Promise<KillableTemporal> {
  const settings = loadTemporalSettings();
  const options = {
    cliPath: process.env.RALLY_TEMPORAL_CLI!,
    dbFile: path.join(directory, 'temporal.sqlite'),
    namespace: 'default',
    searchAttributes: settings.searchAttributes,
    log: () => {},
    // Killed and strained on purpose: its warnings about it are expected noise.
    quiet: process.env.RALLY_TEST_SHOW_OUTPUT !== '1',
  };
  // The first start picks its ports (again if they were taken); a restart keeps them, where its clients reconnect.
  const first = await startTemporalDevServerOnFreePorts(options);
  const start = () => startTemporalDevServer({ ...options, port: first.port, uiPort: first.uiPort });
  let server: TemporalDevServer = first;
  return {
    address: server.address,
    namespace: 'default',
    kill: () => server.kill(),
    async restart() {
      server = await start();
    },
    stop: () => server.stop(),
  };
}

/** The cluster's Temporal server in this run's namespace, or (under `npm test`) a dev server of the test's own with its SQLite file in `directory`. */
export async function killableTemporal(cluster: ClusterControl | undefined, directory: string): Promise<KillableTemporal> {
  if (!cluster) return ownDevServer(directory);
  return {
    address: cluster.temporalAddress,
    namespace: testEnvironment().temporal.namespace!,
    kill: cluster.killTemporalServer,
    restart: cluster.waitForTemporalServer,
    stop: async () => {},
  };
}
