// `npm run bench -- --topology cluster`: the benchmark against `npm run cluster`'s topology (scripts/cluster.ts, on the bench database's server) instead of one
// API on a dev server: real Temporal on PostgreSQL, PgBouncer in transaction mode, two workers and two APIs behind HAProxy, which the scenarios load.
// Everything the topology changes in the harness is in this file.
import path from 'node:path';
import { spawnPrefixed, stopChild } from '../lib/child-process.ts';
import { PGBOUNCER_PORT, TEMPORAL_FRONTEND_ADDRESS, waitForClusterReady } from '../lib/cluster-layout.ts';
import { freePort } from '../lib/free-port.ts';
import { throughPgBouncer } from '../lib/pgbouncer.ts';
import type { Cleanup } from './cleanup.ts';

export const TOPOLOGIES = ['dev-server', 'cluster'] as const;
export type Topology = (typeof TOPOLOGIES)[number];
/** The scenarios whose rows the README shows for both topologies; the others measure one process. */
export const CLUSTER_SCENARIOS = 'signing,webhook-delivery,petition-reads,scale-out';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** `pid`: the cluster's supervisor, whose tree the meter splits into HAProxy, PgBouncer, Temporal, each API and each worker. */
export type ClusterTopology = Readonly<{ apiUrl: string; temporalAddress: string; serviceEnv: NodeJS.ProcessEnv; pid: number | undefined }>;

/**
 * Starts `npm run cluster` on the bench database (direct URL) and waits until it prints its addresses.
 * Processes a scenario starts itself (extra APIs, workers) get the cluster's wiring: DATABASE_URL through
 * PgBouncer, LISTEN direct, the cluster's Temporal frontend.
 */
export async function startClusterTopology(
  options: Readonly<{ databaseUrl: string; serviceEnv: NodeJS.ProcessEnv; cleanup: Cleanup; log: (line: string) => void }>,
): Promise<ClusterTopology> {
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const cluster = spawnPrefixed({
    name: 'cluster',
    command: process.execPath,
    args: ['scripts/cluster.ts'],
    cwd: REPOSITORY_ROOT,
    env: {
      ...options.serviceEnv,
      PORT: String(port),
      PUBLIC_URL: apiUrl,
      DATABASE_URL: options.databaseUrl,
      RALLY_DATA_DIR: path.join(REPOSITORY_ROOT, '.data', 'bench'),
    },
  });
  options.cleanup.add('cluster', async () => {
    cluster.process.kill('SIGINT');
    await stopChild(cluster, 60_000);
  });
  const ready = await waitForClusterReady(cluster);
  if (!ready) throw new Error('the cluster did not come up (its output is above)');
  cluster.silence(); // its request logs would bury the bench's lines
  options.log(`cluster ready: API ${apiUrl} (2 APIs, 2 workers), Temporal ${TEMPORAL_FRONTEND_ADDRESS}, PgBouncer 127.0.0.1:${PGBOUNCER_PORT}`);
  return {
    apiUrl,
    pid: cluster.process.pid,
    temporalAddress: TEMPORAL_FRONTEND_ADDRESS,
    serviceEnv: {
      ...options.serviceEnv,
      PORT: String(port),
      PUBLIC_URL: apiUrl,
      DATABASE_URL: throughPgBouncer(options.databaseUrl, PGBOUNCER_PORT),
      DATABASE_LISTEN_URL: options.databaseUrl,
      RALLY_DB_PREPARED_STATEMENTS: 'false',
      TEMPORAL_ADDRESS: TEMPORAL_FRONTEND_ADDRESS,
    },
  };
}
