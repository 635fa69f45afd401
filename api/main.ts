// `npm run api`: the API process. Needs DATABASE_URL and TEMPORAL_ADDRESS (npm start provides both)
// and an identity provider: OIDC_ISSUER, or the embedded one on 127.0.0.1:RALLY_IDP_PORT.
import './telemetry.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createNotificationListener } from '../db/notifications.ts';
import { createApp } from './app.ts';
import { API_VERSION } from './http/error-middleware.ts';
import { createIdentityClient } from '../core/auth/identity-client.ts';
import { embeddedIssuer, loadConfigOrExit } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { listen } from '../platform/http-server.ts';
import { attachRealtime } from './realtime/websocket.ts';
import { createClientAddressResolver } from './http/client-address.ts';
import { currentTracing } from '../platform/telemetry.ts';
import { connectOrchestration } from '../orchestration/index.ts';

const config = loadConfigOrExit(process.env, 'api');
const log = createLogger('api');
if (!config.databaseUrl || !config.temporal.address) {
  log.error('DATABASE_URL and TEMPORAL_ADDRESS must be set when the API runs on its own (npm start sets both)');
  process.exit(78);
}

const db = await createDatabasePool(config.databaseUrl, {
  maximumPoolSize: config.databasePoolSize ?? 20,
  preparedStatements: config.databasePreparedStatements,
  // The hot path's rows (signing) are trusted outside tests, where every row is still checked.
  checkPreparedRows: config.nodeEnv === 'test',
});
// LISTEN needs a session: through a transaction pooler it takes the direct DATABASE_LISTEN_URL.
const notifications = await createNotificationListener(config.databaseListenUrl ?? config.databaseUrl, log);
const workflows = await connectOrchestration(config.temporal);
const identity = createIdentityClient({
  issuer: config.identity.issuer ?? embeddedIssuer(config),
  clientId: config.identity.clientId,
  clientSecret: config.identity.clientSecret,
});
const rally = await createApp({ config, db, workflows, notifications, identity, log });
const running = await listen(rally.app, config.port, undefined, {
  problemTypeBase: `${config.publicUrl}/problems/`,
  headers: { 'X-API-Version': API_VERSION },
});
const realtime = attachRealtime(running.server, {
  db,
  feed: rally.feed,
  maxPerAddress: config.realtimeMaxPerAddress,
  clientAddress: createClientAddressResolver(config.trustProxy),
});
log.info('listening', { port: running.port, public_url: config.publicUrl, docs: `${config.publicUrl}/docs` });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal, readiness_delay_ms: config.shutdown.apiReadinessDelayMs });
  // Readiness fails first and the server keeps serving meanwhile, so a load balancer has time to
  // take this process out of rotation before connections are refused.
  rally.readiness.drain();
  if (config.shutdown.apiReadinessDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdown.apiReadinessDelayMs));
  for (const client of realtime.clients) client.close(1001, 'server shutting down');
  await running.close();
  await rally.stop();
  await notifications.close();
  await workflows.close();
  await db.end();
  log.info('stopped');
  await currentTracing()?.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
