// The real-time channel at /v1/realtime. A client sends {"type":"subscribe","petition_id":"<uuid>"}
// and then receives signature.created / signature.removed with the new count. Malformed messages
// get {"type":"error","message":…} and the connection stays open. A client that reads too slowly is
// dropped rather than buffered without bound.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DatabasePool } from 'slonik';
import { WebSocketServer, type WebSocket } from 'ws';
import { ANONYMOUS } from '../../core/petitions/policy.ts';
import { isVisibleTo } from '../../core/petitions/queries.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';

const PATH = '/v1/realtime';
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MAX_SUBSCRIPTIONS = 50;
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

export function attachRealtime(server: Server, deps: { db: DatabasePool; feed: SignatureFeed }): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 4096 });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws));
  });

  sockets.on('connection', (ws: WebSocket) => {
    const unsubscribers = new Map<string, () => void>();
    ws.on('close', () => unsubscribers.forEach((unsubscribe) => unsubscribe()));
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
      if (unsubscribers.size >= MAX_SUBSCRIPTIONS) return send(ws, { type: 'error', message: `At most ${MAX_SUBSCRIPTIONS} subscriptions per connection.` });
      if (!(await isSubscribable(deps.db, petitionId))) return send(ws, { type: 'error', message: 'There is no such public petition.' });
      if (!unsubscribers.has(petitionId)) unsubscribers.set(petitionId, deps.feed.subscribe(petitionId, (event) => send(ws, event)));
      send(ws, { type: 'subscribed', petition_id: petitionId });
    };
    ws.on('message', (raw) => {
      handle(raw).catch(() => send(ws, { type: 'error', message: 'The subscription could not be made right now; try again.' }));
    });
  });
  return sockets;
}
