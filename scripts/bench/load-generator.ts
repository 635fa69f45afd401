// The load generator, in a process of its own: autocannon with worker threads, so load never shares an event loop with the benchmark's bookkeeping and is not
// the ceiling of the fastest target (a bare node:http server outruns one autocannon thread). IPC: a GeneratorJob in (it may carry thousands of tokens: too long
// for an argument), {ready}, starts on {go} so a meter sees the load alone, {result} out, then waits alive to be stopped so its CPU is still its own.
import autocannon from 'autocannon';

export type GeneratorJob = {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** Cycled through by every connection in turn (autocannon `requests`), e.g. one per API key. */
  requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string }[];
  connections: number;
  pipelining: number;
  durationSec: number;
  timeoutSec: number;
  workers: number;
};

const job = await new Promise<GeneratorJob>((resolve) => process.once('message', (message) => resolve(message as GeneratorJob)));
await new Promise<void>((resolve) => process.send?.({ ready: true }, () => resolve()));
await new Promise<void>((resolve) => process.once('message', () => resolve()));

let finished = false;
let stopping = false;
const instance = autocannon(
  {
    url: job.url,
    method: job.method as autocannon.Request['method'],
    headers: job.headers,
    body: job.body,
    requests: job.requests as autocannon.Request[] | undefined,
    connections: job.connections,
    pipelining: job.pipelining,
    duration: job.durationSec,
    timeout: job.timeoutSec,
    workers: job.workers,
  } as autocannon.Options,
  (error: unknown, result: autocannon.Result) => {
    if (error) {
      process.stderr.write(`load generator failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    finished = true;
    process.send?.({ result }, () => {
      if (stopping) process.exit(0);
    });
  },
);
// Before the end, a SIGTERM (the watchdog) ends the run early, which still sends its result.
process.on('SIGTERM', () => {
  if (finished) process.exit(0);
  stopping = true;
  instance.stop();
});
process.on('disconnect', () => process.exit(0));
