// A small TCP load balancer for `npm run cluster`: each new connection goes to the next API process
// in turn, as a production load balancer with health checks does. Every API's readiness probe
// (GET /health/ready) is polled; a process answering anything but 200 gets no new connections, so
// one that is draining before a restart (api/main.ts answers 503 there first) is left alone to finish
// what it serves. A process that refuses a connection (restarting) is skipped for that connection.
// When no process is ready (PostgreSQL or Temporal down for all), connections still go round, so
// the APIs can answer 503 themselves instead of the proxy hanging up.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type RoundRobinProxy = Readonly<{ close(): Promise<void> }>;

export type RoundRobinOptions = Readonly<{
  /** How often each target's readiness is probed; a restart is noticed within about this long. */
  probeIntervalMs?: number;
  readinessPath?: string;
}>;

function probe(port: number, path: string): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(1_000) }).then(
    async (response) => {
      await response.body?.cancel();
      return response.status === 200;
    },
    () => false,
  );
}

export async function startRoundRobinProxy(
  host: string,
  port: number,
  targetPorts: readonly number[],
  options: RoundRobinOptions = {},
): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const ready = new Map(targetPorts.map((target) => [target, true]));
  const probeAll = async () => {
    await Promise.all(targetPorts.map(async (target) => ready.set(target, await probe(target, options.readinessPath ?? '/health/ready'))));
  };
  await probeAll();
  let probing = false;
  const prober = setInterval(() => {
    if (probing) return;
    probing = true;
    void probeAll().finally(() => {
      probing = false;
    });
  }, options.probeIntervalMs ?? 250);

  /** The next ready target in turn, or the next one at all when none is ready. */
  const pick = (): number => {
    const anyReady = targetPorts.some((target) => ready.get(target));
    for (let tries = 0; tries < targetPorts.length; tries += 1) {
      const target = targetPorts[next % targetPorts.length]!;
      next += 1;
      if (!anyReady || ready.get(target)) return target;
    }
    return targetPorts[next++ % targetPorts.length]!;
  };

  const relay = (client: Socket, triesLeft: number): void => {
    const upstream = connect(pick(), '127.0.0.1');
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
        clearInterval(prober);
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
