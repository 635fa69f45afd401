// A TCP proxy in front of the API that can lose answers: armed with dropAnswers(n), it closes the
// connection of each of the next n answers at its first byte, after the API has done the request, so
// the client sees a network error for a request that took effect (a killed connection mid-request).
import { connect, createServer, type Socket } from 'node:net';

export type AnswerDroppingProxy = { baseUrl: string; dropAnswers(count: number): void; readonly dropped: number; close(): Promise<void> };

export async function startAnswerDroppingProxy(target: string): Promise<AnswerDroppingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let toDrop = 0;
  let dropped = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', kill);
    }
    client.pipe(upstream);
    let answering = false;
    upstream.on('data', (chunk: Buffer) => {
      if (!answering && toDrop > 0) {
        toDrop--;
        dropped++;
        return kill();
      }
      answering = true;
      client.write(chunk);
    });
    // A kept-alive connection's next answer may be dropped again.
    client.on('data', () => (answering = false));
    upstream.once('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    dropAnswers: (count) => void (toDrop = count),
    get dropped() {
      return dropped;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
