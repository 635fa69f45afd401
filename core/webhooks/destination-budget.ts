// Deliveries to one destination, whichever endpoints name it: endpoints on many accounts may all point at one victim, which the per-endpoint limit cannot see,
// and Rally would become an amplifier. So each worker process lets at most RALLY_WEBHOOK_HOST_CONCURRENCY (default 200) requests be in flight to one
// destination: the address the host resolves to (IPv6 by its /64), so many names for one machine, and every port on it, share one budget.
import dns from 'node:dns';
import { isIP } from 'node:net';
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import { networkBlockOf } from '../signatures/network-block.ts';

export type DestinationBudget = {
  readonly perDestination: number;
  /**
   * Runs `send` while holding one of the destination's slots. `timeoutMs` is the attempt's whole
   * time: at most half of it goes to waiting for a slot, and `send` gets what the wait left over.
   * 'busy' when no slot freed in time.
   */
  withSlot<T>(url: string, timeoutMs: number, send: (remainingMs: number) => Promise<T>): Promise<T | 'busy'>;
};

// Resolved names are kept briefly, so a burst to one host costs one lookup; the cap bounds memory.
const RESOLUTION_TTL_MS = 30_000;
const MAX_CACHED_NAMES = 10_000;

/** An IPv4 address as is; an IPv6 address by its first four groups, since one host usually owns a whole /64. */
export function destinationOfAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return isIP(address) === 6 ? networkBlockOf(address)! : address;
}

// A delivery waits for a slot at most the time it is given; one that gets none is reported busy, and the caller
// treats it like a slow receiver: a failed attempt, retried later. The wait counts towards the attempt's
// timeout.
export function createDestinationBudget(
  perDestination: number,
  lookup: (host: string) => Promise<string> = async (host) => (await dns.promises.lookup(host)).address,
): DestinationBudget {
  const inFlight = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const resolved = createBoundedLru<string, string>(MAX_CACHED_NAMES, { ttl: RESOLUTION_TTL_MS });

  async function destinationOf(url: string): Promise<string> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) return destinationOfAddress(host);
    const cached = resolved.get(host);
    if (cached !== undefined) return cached;
    // A name that does not resolve fails its delivery anyway; it is budgeted by the name meanwhile.
    const destination = await lookup(host).then(destinationOfAddress, () => `name:${host}`);
    resolved.set(host, destination);
    return destination;
  }

  function acquire(destination: string, waitMs: number): Promise<boolean> {
    const used = inFlight.get(destination) ?? 0;
    if (used < perDestination) {
      inFlight.set(destination, used + 1);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const queue = waiting.get(destination) ?? [];
      waiting.set(destination, queue);
      const grant = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(grant), 1);
        if (queue.length === 0) waiting.delete(destination);
        resolve(false);
      }, waitMs);
      queue.push(grant);
    });
  }

  /** Hands the slot to the longest waiter, or frees it. */
  function release(destination: string): void {
    const queue = waiting.get(destination);
    const next = queue?.shift();
    if (queue?.length === 0) waiting.delete(destination);
    if (next) return next();
    const used = (inFlight.get(destination) ?? 1) - 1;
    if (used === 0) inFlight.delete(destination);
    else inFlight.set(destination, used);
  }

  return {
    perDestination,
    async withSlot(url, timeoutMs, send) {
      const started = Date.now();
      const destination = await destinationOf(url);
      if (!(await acquire(destination, Math.max(0, timeoutMs / 2 - (Date.now() - started))))) return 'busy';
      try {
        return await send(Math.max(1, timeoutMs - (Date.now() - started)));
      } finally {
        release(destination);
      }
    },
  };
}
