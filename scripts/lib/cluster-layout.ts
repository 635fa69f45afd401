// Where `npm run cluster` puts things: its ports and the files it keeps under RALLY_DATA_DIR. Shared by
// the cluster script, `npm run test:cluster` (which kills the Temporal server through its pid file) and
// the benchmark's cluster topology, so the addresses are written once.
import path from 'node:path';
import type { PrefixedChild } from './child-process.ts';

// Beside the dev server's 7233/8233 and PostgreSQL's 5432, so `npm start` can run at the same time.
export const TEMPORAL_PORTS = {
  FRONTEND_PORT: 7333,
  FRONTEND_HTTP_PORT: 7343,
  HISTORY_PORT: 7334,
  MATCHING_PORT: 7335,
  WORKER_PORT: 7339,
  FRONTEND_MEMBERSHIP_PORT: 7933,
  HISTORY_MEMBERSHIP_PORT: 7934,
  MATCHING_MEMBERSHIP_PORT: 7935,
  WORKER_MEMBERSHIP_PORT: 7939,
} as const;
export const TEMPORAL_FRONTEND_ADDRESS = `127.0.0.1:${TEMPORAL_PORTS.FRONTEND_PORT}`;
export const TEMPORAL_UI_PORT = 8333;
export const PGBOUNCER_PORT = 6433; // Debian's own pgbouncer service takes 6432
/** HAProxy's stats page (HTML at /, CSV at /;csv), loopback only; compose.yaml publishes its own on 8404. */
export const HAPROXY_STATS_PORT = 8405;
/** The Temporal server's configuration, shared with compose.yaml: `--config ops/temporal --env rally`. */
export const TEMPORAL_CONFIG_DIR = 'ops/temporal';
export const TEMPORAL_CONFIG_ENV = 'rally';

/** What `npm run cluster` prints last, once every part answers. */
export const CLUSTER_READY_LINE = 'Press Ctrl-C to stop.';

/** The cluster's files under a data directory (RALLY_DATA_DIR, default .data). */
export function clusterPaths(dataDir: string) {
  const root = path.join(dataDir, 'cluster');
  return {
    root,
    temporal: path.join(root, 'temporal'),
    /** The running Temporal server's process id, rewritten at every (re)start. */
    temporalPidFile: path.join(root, 'temporal', 'server.pid'),
    temporalUi: path.join(root, 'temporal-ui'),
    pgbouncer: path.join(root, 'pgbouncer'),
    haproxy: path.join(root, 'haproxy'),
  };
}

// The first run builds the Temporal server and its tools from Go modules: many minutes on two cores.
const READY_TIMEOUT_MS = 30 * 60_000;

/** Whether a started `npm run cluster` printed its ready line: false when it exited first or took over half an hour. */
export function waitForClusterReady(cluster: Pick<PrefixedChild, 'process' | 'exited'>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    cluster.process.stdout?.on('data', (chunk: Buffer) => {
      if (String(chunk).includes(CLUSTER_READY_LINE)) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    void cluster.exited.then(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
