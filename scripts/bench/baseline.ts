// Starts and stops the bare node:http reference server (baseline-server.ts) in a child process.
import path from 'node:path';
import { describeExit, spawnPrefixed, stopChild } from '../lib/child-process.ts';

const SERVER_ENTRY = path.join(import.meta.dirname, 'baseline-server.ts');
const READY_TIMEOUT_MS = 15_000;

/** `pid` lets a meter count the server's CPU (role `baseline`). */
export type BaselineServer = Readonly<{ url: string; pid: number | undefined; stop(): Promise<void> }>;

/** `data` is what the server puts in the envelope's `data`: pass the API's own answer for equal bodies. */
export async function startBaselineServer(data: unknown, log: (line: string) => void): Promise<BaselineServer> {
  const child = spawnPrefixed({
    name: 'baseline',
    command: process.execPath,
    args: [SERVER_ENTRY, JSON.stringify(data)],
    ipc: true,
  });
  const stop = async (): Promise<void> => {
    await stopChild(child, 5_000);
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.process.once('message', (message: { port?: unknown }) => {
        if (typeof message.port === 'number' && message.port > 0) resolve(message.port);
        else reject(new Error('the baseline server reported no port'));
      });
      void child.exited.then((exit) => reject(new Error(`the baseline server exited during start-up (${describeExit(exit)})`)));
      timer = setTimeout(() => reject(new Error(`the baseline server did not start within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    });
    const url = `http://127.0.0.1:${port}`;
    log(`bare node:http baseline listening on ${url}`);
    return { url, pid: child.process.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
