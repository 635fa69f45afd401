// One PostgreSQL LISTEN connection per process, shared by every channel it follows (revoked tokens,
// changed users, live signature counts). It reconnects with backoff and tells subscribers when it
// did, because NOTIFYs sent while disconnected are lost and they may need to reload state.
import pg from 'pg';
import type { Logger } from '../platform/logger.ts';

export type NotificationHandler = (payload: string) => void;

export type NotificationListener = {
  /** Follows a channel; the handler gets each payload. Channel names are fixed identifiers in code. */
  listen(channel: string, handler: NotificationHandler): Promise<void>;
  /** Called after every reconnect, so state that NOTIFY keeps current can be reloaded. */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
};

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function createNotificationListener(databaseUrl: string, log: Logger): Promise<NotificationListener> {
  const handlers = new Map<string, NotificationHandler[]>();
  const reconnectHandlers: (() => void)[] = [];
  let client: pg.Client | undefined;
  let closed = false;
  let retryDelayMs = 250;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    next.on('error', (error) => {
      log.warn('notification connection lost', { error: error.message });
      void reconnect(next);
    });
    await next.connect();
    for (const channel of handlers.keys()) await next.query(`LISTEN ${channel}`);
    client = next;
    retryDelayMs = 250;
  }

  async function reconnect(failed: pg.Client): Promise<void> {
    if (closed || client !== failed) return;
    client = undefined;
    await failed.end().catch(() => undefined);
    while (!closed && !client) {
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
      retryDelayMs = Math.min(retryDelayMs * 2, 10_000);
      await connect().catch((error: Error) => log.warn('notification reconnect failed', { error: error.message }));
    }
    if (client) for (const handler of reconnectHandlers) handler();
  }

  await connect();
  return {
    async listen(channel, handler) {
      if (!CHANNEL_NAME.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const existing = handlers.get(channel);
      if (existing) {
        existing.push(handler);
        return;
      }
      handlers.set(channel, [handler]);
      await client?.query(`LISTEN ${channel}`);
    },
    onReconnect(handler) {
      reconnectHandlers.push(handler);
    },
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
