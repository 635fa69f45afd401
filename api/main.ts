// `npm run api`: the API process. Needs DATABASE_URL and TEMPORAL_ADDRESS (npm start provides both).
import { Client, Connection } from '@temporalio/client';
import { createApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createLogger } from './logger.ts';
import { listen } from './server.ts';

const config = loadConfigOrExit();
const log = createLogger('api');
if (!config.databaseUrl || !config.temporal.address) {
  log.error('DATABASE_URL and TEMPORAL_ADDRESS must be set when the API runs on its own (npm start sets both)');
  process.exit(78);
}

const db = await createDatabasePool(config.databaseUrl, { maximumPoolSize: 20 });
const connection = await Connection.connect({ address: config.temporal.address });
const client = new Client({ connection, namespace: config.temporal.namespace });
const app = createApp({ config, db, temporal: { connection, client }, log });
const running = await listen(app, config.port);
log.info('listening', { port: running.port, public_url: config.publicUrl, docs: `${config.publicUrl}/docs` });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  await running.close();
  await connection.close();
  await db.end();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
