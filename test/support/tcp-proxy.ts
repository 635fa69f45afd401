// A TCP proxy that a test can cut and restore (cut() closes every relayed connection and refuses new
// ones, restore() relays again on the same port), to take a dependency away from a running process; with
// `localAddress` its upstream sockets are bound to that loopback address, which the target sees as the client.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../scripts/lib/free-port.ts';

export type TcpProxy = { port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> };

export async function startTcpProxy(targetHost: string, targetPort: number, options: { localAddress?: string } = {}): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const relay = (client: Socket) => {
    const upstream = connect({ port: targetPort, host: targetHost, localAddress: options.localAddress });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  };

  async function open(): Promise<void> {
    server = createServer(relay);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
  }

  async function shut(): Promise<void> {
    const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    server = undefined;
    for (const socket of sockets) socket.destroy();
    await closing;
  }

  await open();
  return { port, cut: shut, restore: open, close: shut };
}
