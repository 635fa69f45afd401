// Signing load from many client addresses, in a process of its own (metered as `load`): each client connects from a loopback address of its own (Linux routes
// all of 127.0.0.0/8 to lo), sends `perAddress` signatures one at a time, each from a fresh signer, then takes the next address. No proxy header: the API sees
// each address as the peer. IPC: an AddressJob in, {ready}, runs on {go}, {result} out, then waits to be stopped so its CPU is still its own when metered.
import { Client } from 'undici';
import { loopbackAddress } from './addresses.ts';

export type AddressJob = {
  origin: string;
  /** Access tokens in the order they are used; none is used twice. */
  tokens: string[];
  /** Request i signs petitions[(petitionOffset + i) % length]. */
  petitions: string[];
  petitionOffset: number;
  /** Addresses are slots firstSlot … firstSlot + addresses - 1 (addresses.ts), taken in turn. */
  firstSlot: number;
  addresses: number;
  perAddress: number;
  connections: number;
  durationSec: number;
  timeoutSec: number;
};

export type AddressResult = {
  requests: number;
  durationSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statuses: Record<string, number>;
  addressesUsed: number;
  tokensUsed: number;
  /** The tokens ran out before the time did: the row is short of fresh signers. */
  exhausted: boolean;
};

const job = await new Promise<AddressJob>((resolve) => process.once('message', (message) => resolve(message as AddressJob)));
await new Promise<void>((resolve) => process.send?.({ ready: true }, () => resolve()));
await new Promise<void>((resolve) => process.once('message', () => resolve()));

let nextRequest = 0;
let nextAddress = 0;
let exhausted = false;
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
let timeouts = 0;
const began = performance.now();
const deadline = began + job.durationSec * 1000;
const live = () => performance.now() < deadline && !exhausted;

async function sign(client: Client): Promise<void> {
  const index = nextRequest++;
  if (index >= job.tokens.length) {
    exhausted = true;
    return;
  }
  const petition = job.petitions[(job.petitionOffset + index) % job.petitions.length]!;
  const at = performance.now();
  try {
    const answer = await client.request({
      path: `/v1/petitions/${petition}/signatures`,
      method: 'POST',
      headers: { authorization: `Bearer ${job.tokens[index]}`, 'content-type': 'application/json' },
      body: '{}',
      headersTimeout: job.timeoutSec * 1000,
      bodyTimeout: job.timeoutSec * 1000,
    });
    await answer.body.dump();
    statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
  } catch (error) {
    errors += 1;
    if ((error as { code?: string }).code?.includes('TIMEOUT')) timeouts += 1;
  }
  latencies.push(performance.now() - at);
}

async function clientLoop(): Promise<void> {
  while (live()) {
    const localAddress = loopbackAddress(job.firstSlot + (nextAddress++ % job.addresses));
    const client = new Client(job.origin, { localAddress, pipelining: 1 });
    try {
      for (let sent = 0; sent < job.perAddress && live(); sent += 1) await sign(client);
    } finally {
      await client.close().catch(() => client.destroy());
    }
  }
}

await Promise.all(Array.from({ length: job.connections }, () => clientLoop()));
const durationSec = (performance.now() - began) / 1000;
latencies.sort((a, b) => a - b);
const at = (p: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!);
const ok = Object.entries(statuses).reduce((sum, [status, count]) => sum + (status.startsWith('2') ? count : 0), 0);
const result: AddressResult = {
  requests: latencies.length,
  durationSec,
  p50Ms: Math.round(at(50) * 10) / 10,
  p99Ms: Math.round(at(99) * 10) / 10,
  errors,
  timeouts,
  non2xx: latencies.length - errors - ok,
  statuses,
  addressesUsed: Math.min(nextAddress, job.addresses),
  tokensUsed: Math.min(nextRequest, job.tokens.length),
  exhausted,
};
process.send?.({ result });
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
