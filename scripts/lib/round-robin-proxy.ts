// A small TCP load balancer for `npm run cluster`: each new connection goes to the next API process
// in turn, and a process that refuses (restarting) is skipped for that connection, as a production
// load balancer with health checks would.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type RoundRobinProxy = Readonly<{ close(): Promise<void> }>;

export async function startRoundRobinProxy(host: string, port: number, targetPorts: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();

  const relay = (client: Socket, triesLeft: number): void => {
    const target = targetPorts[next % targetPorts.length]!;
    next += 1;
    const upstream = connect(target, '127.0.0.1');
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    upstream.once('error', () => {
      if (!connected && triesLeft > 1) relay(client, triesLeft - 1);
      else client.destroy();
    });
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    client.on('error', () => client.destroy());
    relay(client, targetPorts.length); // paused until piped, so no byte is lost meanwhile
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
