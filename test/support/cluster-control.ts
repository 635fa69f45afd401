// What a test may do to the cluster `npm run test:cluster` runs it on (scripts/test-cluster.ts):
// SIGKILL the Temporal server, which the cluster's supervisor restarts, and restart the PostgreSQL
// of that run (its own, never the machine's shared one) with `pg_ctl restart -m fast`. Undefined
// under `npm test`, where tests start and kill their own dev server instead.
import { readFile } from 'node:fs/promises';
import { Connection } from '@temporalio/client';
import { restartPostgres } from '../../scripts/lib/private-postgres.ts';
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
