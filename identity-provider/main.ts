// The embedded identity provider's process (used when OIDC_ISSUER is unset). It listens on loopback
// only: the API, on the same host, is its one client. Needs DATABASE_URL.
import { embeddedIssuer, loadConfigOrExit } from '../platform/config.ts';
import { createLogger, setLogLevel } from '../platform/logger.ts';
import { listen } from '../platform/http-server.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createNotificationListener } from '../db/notifications.ts';
import { createLoginThrottle } from '../core/auth/login-throttle.ts';
import { createMailer } from '../platform/mailer.ts';
import { createIdentityProvider } from './create-provider.ts';
import { loadIdentitySigningKeys } from './signing-keys.ts';

const config = loadConfigOrExit();
setLogLevel(config.observability.logLevel);
const log = createLogger('identity-provider');
if (!config.databaseUrl) {
  log.error('DATABASE_URL must be set when the identity provider runs on its own (npm start sets it)');
  process.exit(78);
}

const port = config.identity.embeddedPort;
const issuer = embeddedIssuer(config);
const db = await createDatabasePool(config.databaseUrl, { maximumPoolSize: config.databasePoolSize ?? 10 });
// Rotations announce new and dropped keys by NOTIFY; LISTEN needs a session (DATABASE_LISTEN_URL behind a transaction pooler).
const notifications = await createNotificationListener(config.databaseListenUrl ?? config.databaseUrl, log);
const provider = await createIdentityProvider({
  issuer,
  db,
  clients: [{ client_id: config.identity.clientId, client_secret: config.identity.clientSecret }],
  accessTokenTtlSeconds: Math.ceil(config.identity.accessTokenTtlMs / 1000),
  refreshTokenTtlSeconds: Math.ceil(config.identity.refreshTokenTtlMs / 1000),
  resourceAudience: config.publicUrl,
  encryptionKey: config.encryptionKey,
  signingKeys: await loadIdentitySigningKeys(db, { encryptionKey: config.encryptionKey, notifications, log }),
  rallyUrl: config.publicUrl,
  mailer: createMailer(config.mail),
  throttle: createLoginThrottle({ db, limit: config.loginFailureLimit, encryptionKey: config.encryptionKey }),
  log,
});

const running = await listen(provider, port, '127.0.0.1');
log.info('listening', { port: running.port, issuer, audience: config.publicUrl });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  await running.close();
  await notifications.close();
  await db.end();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
