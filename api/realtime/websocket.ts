// The real-time channel at /v1/realtime: a client sends {"type":"subscribe","petition_id":"<uuid>"} and receives signature.created / signature.removed with the
// new count; malformed messages get {"type":"error","message":…} and the connection stays open. Subscribing again to a petition already followed answers at
// once, without a query.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DatabasePool } from 'slonik';
import { WebSocketServer, type WebSocket } from 'ws';
import { ANONYMOUS } from '../../core/petitions/policy.ts';
import { isVisibleTo } from '../../core/petitions/queries.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';
import { metrics } from '../../platform/metrics.ts';

const PATH = '/v1/realtime';
// Limits: a client that reads too slowly is dropped rather than buffered without bound;
// RALLY_WS_MAX_PER_ADDRESS connections per client address (429 at the upgrade), 50 subscriptions per
// connection, 20 messages per second (close 1008), and a ping every 30 s that must be answered before the next
// (else the connection is dropped).
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MAX_SUBSCRIPTIONS = 50;
const MAX_MESSAGES_PER_SECOND = 20;
const PING_INTERVAL_MS = 30_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const send = (socket: WebSocket, message: object) => {
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    socket.terminate();
    return;
  }
  socket.send(JSON.stringify(message));
};

// Live counts of petitions anyone may read without a code: a private petition's activity is not
// broadcast (the socket has no credentials).
const isSubscribable = (db: DatabasePool, petitionId: string) => isVisibleTo(db, ANONYMOUS, petitionId);

export type RealtimeOptions = {
  db: DatabasePool;
  feed: SignatureFeed;
  maxPerAddress: number;
  clientAddress: (socketAddress: string | undefined, forwardedFor: string) => string;
};

export function attachRealtime(server: Server, deps: RealtimeOptions): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const perAddress = new Map<string, number>();
  const alive = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of sockets.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, PING_INTERVAL_MS);
  heartbeat.unref();
  sockets.on('close', () => clearInterval(heartbeat));

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const address = deps.clientAddress(request.socket.remoteAddress, String(request.headers['x-forwarded-for'] ?? ''));
    const open = perAddress.get(address) ?? 0;
    if (open >= deps.maxPerAddress) {
      metrics.rateLimitRejections.inc({ limit: 'websocket_per_address' });
      socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 60\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    perAddress.set(address, open + 1);
    const release = () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    };
    socket.once('close', release);
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws));
  });

  sockets.on('connection', (ws: WebSocket) => {
    const unsubscribers = new Map<string, () => void>();
    alive.add(ws);
    metrics.websocketConnections.inc();
    ws.on('pong', () => alive.add(ws));
    ws.on('close', () => {
      metrics.websocketConnections.dec();
      unsubscribers.forEach((unsubscribe) => unsubscribe());
    });
    let windowStart = Date.now();
    let messagesInWindow = 0;
    const handle = async (raw: unknown) => {
      let message: { type?: unknown; petition_id?: unknown };
      try {
        message = JSON.parse(String(raw)) as typeof message;
      } catch {
        return send(ws, { type: 'error', message: 'Messages must be JSON.' });
      }
      const petitionId = typeof message?.petition_id === 'string' ? message.petition_id : '';
      if (message?.type === 'unsubscribe' && unsubscribers.has(petitionId)) {
        unsubscribers.get(petitionId)!();
        unsubscribers.delete(petitionId);
        return send(ws, { type: 'unsubscribed', petition_id: petitionId });
      }
      if (message?.type !== 'subscribe') return send(ws, { type: 'error', message: 'Unknown message type; send {"type":"subscribe","petition_id":"<uuid>"}.' });
      if (!UUID.test(petitionId)) return send(ws, { type: 'error', message: 'petition_id must be a UUID.' });
      if (unsubscribers.has(petitionId)) return send(ws, { type: 'subscribed', petition_id: petitionId });
      if (unsubscribers.size >= MAX_SUBSCRIPTIONS) return send(ws, { type: 'error', message: `At most ${MAX_SUBSCRIPTIONS} subscriptions per connection.` });
      if (!(await isSubscribable(deps.db, petitionId))) return send(ws, { type: 'error', message: 'There is no such public petition.' });
      if (!unsubscribers.has(petitionId))
        unsubscribers.set(
          petitionId,
          deps.feed.subscribe(petitionId, (event) => send(ws, event)),
        );
      send(ws, { type: 'subscribed', petition_id: petitionId });
    };
    ws.on('message', (raw) => {
      const now = Date.now();
      if (now - windowStart >= 1000) [windowStart, messagesInWindow] = [now, 0];
      messagesInWindow += 1;
      if (messagesInWindow > MAX_MESSAGES_PER_SECOND) {
        ws.close(1008, `more than ${MAX_MESSAGES_PER_SECOND} messages per second`);
        return;
      }
      handle(raw).catch(() => send(ws, { type: 'error', message: 'The subscription could not be made right now; try again.' }));
    });
  });
  return sockets;
}
