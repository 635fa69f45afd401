// Whether webhook deliveries keep pace with signing: the signature.created events a signing window
// wrote, waited for at the receiver, boiled down to rate, keep-up (deliveries/s ÷ signatures/s),
// event → receipt latency, losses and duplicates (an event arriving under a second delivery id).
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { percentile } from './load.ts';
import type { Receiver } from './webhook-kit.ts';

export type KeepUp = Readonly<{
  events: number;
  delivered: number;
  lost: number;
  /** Events that arrived under more than one delivery id (at-least-once allows repeats of one id only). */
  duplicates: number;
  /** Deliveries per second, first event to last arrival. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
}>;

const DRAIN_LIMIT_MS = 120_000;

/** The newest event position taken (the sequence, not a scan of the log), to tell a window's events from earlier ones. */
export async function outboxPosition(client: pg.Client): Promise<string> {
  return (await client.query<{ position: string }>('SELECT last_value::text AS position FROM event_positions')).rows[0]!.position;
}

/** Waits (bounded) for every signature.created event of `petitionId` after `since` to arrive, then measures. */
export async function deliveriesSince(client: pg.Client, receiver: Receiver, petitionId: string, since: string): Promise<KeepUp> {
  const rows = await client.query<{ id: string; age_ms: number }>(
    `SELECT id, (extract(epoch FROM clock_timestamp() - occurred_at) * 1000)::float8 AS age_ms
     FROM events WHERE petition_id = $1 AND type = 'signature.created' AND position > $2`,
    [petitionId, since],
  );
  const ids = rows.rows.map((row) => row.id);
  const firstAt = performance.now() - Math.max(0, ...rows.rows.map((row) => row.age_ms));
  const deadline = performance.now() + DRAIN_LIMIT_MS;
  const arrived = () => ids.filter((id) => receiver.arrivals.has(id));
  while (arrived().length < ids.length && performance.now() < deadline) await sleep(100);
  const got = arrived();
  const latencies = got.map((id) => receiver.sinceEvent.get(id)!).sort((a, b) => a - b);
  const lastArrival = Math.max(firstAt, ...got.map((id) => receiver.arrivals.get(id)!));
  const seconds = Math.max((lastArrival - firstAt) / 1000, 0.001);
  return {
    events: ids.length,
    delivered: got.length,
    lost: ids.length - got.length,
    duplicates: got.filter((id) => (receiver.deliveryIds.get(id)?.size ?? 0) > 1).length,
    rate: got.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    seconds,
  };
}

/** Several rounds as one: counts added, rate and latencies the medians of the rounds. */
export function combineKeepUps(rounds: readonly KeepUp[]): KeepUp {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
  const sum = (pick: (round: KeepUp) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  return {
    events: sum((round) => round.events),
    delivered: sum((round) => round.delivered),
    lost: sum((round) => round.lost),
    duplicates: sum((round) => round.duplicates),
    rate: median(rounds.map((round) => round.rate)),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    seconds: sum((round) => round.seconds),
  };
}
