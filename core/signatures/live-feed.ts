// Live signature events for every API process. Each process batches what it hears from its own signing requests and publishes a batch every FLUSH_MS with one
// NOTIFY (a NOTIFY per signature would make every signing transaction queue on PostgreSQL's notification lock). Every process, the publisher included, delivers
// what arrives on the channel to its own WebSocket subscribers. Live counts are best-effort by nature: the durable record is the signature and its event.
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { EVENTS_CHANNEL } from '../events/record-event.ts';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';

export const SIGNATURE_FEED_CHANNEL = 'rally_signature_feed';
const FLUSH_MS = 50;
// PostgreSQL caps a NOTIFY payload below 8000 bytes.
const MAX_PAYLOAD_BYTES = 7_500;

export type SignatureFeedEvent = { type: 'signature.created' | 'signature.removed'; petition_id: string; signature_count: number; created_at: string };
export type FeedListener = (event: SignatureFeedEvent) => void;

export type SignatureFeed = {
  publish(event: SignatureFeedEvent): void;
  subscribe(petitionId: string, listener: FeedListener): () => void;
  stop(): Promise<void>;
};

function chunks(events: SignatureFeedEvent[]): string[] {
  const payloads: string[] = [];
  let current: SignatureFeedEvent[] = [];
  for (const event of events) {
    current.push(event);
    if (JSON.stringify(current).length > MAX_PAYLOAD_BYTES) {
      current.pop();
      payloads.push(JSON.stringify(current));
      current = [event];
    }
  }
  if (current.length) payloads.push(JSON.stringify(current));
  return payloads;
}

export async function createSignatureFeed(deps: { db: DatabasePool; notifications: NotificationListener; log: Logger }): Promise<SignatureFeed> {
  const listeners = new Map<string, Set<FeedListener>>();
  let pending: SignatureFeedEvent[] = [];

  await deps.notifications.listen(SIGNATURE_FEED_CHANNEL, (payload) => {
    let events: SignatureFeedEvent[];
    try {
      events = JSON.parse(payload) as SignatureFeedEvent[];
    } catch {
      return;
    }
    for (const event of events) for (const listener of listeners.get(event.petition_id) ?? []) listener(event);
  });

  async function flush() {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    for (const payload of chunks(batch)) {
      await deps.db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${SIGNATURE_FEED_CHANNEL}, ${payload})`);
    }
    // Signatures write their events without a NOTIFY of their own; wake the dispatcher once per batch.
    await deps.db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);
  }

  let flushing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    flushing = flushing.then(flush).catch((error: Error) => deps.log.warn('signature feed flush failed', { error: error.message }));
  }, FLUSH_MS);
  timer.unref();

  return {
    publish(event) {
      pending.push(event);
    },
    subscribe(petitionId, listener) {
      const set = listeners.get(petitionId) ?? new Set();
      set.add(listener);
      listeners.set(petitionId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(petitionId);
      };
    },
    async stop() {
      clearInterval(timer);
      await flushing;
      await flush().catch(() => undefined);
    },
  };
}
