// How far behind the database a served signature count is. Two samplers run side by side: one reads the petition's count from its counter shards, the other
// reads it through the API. A served count is late by the time since the database first held a larger one (0 when it held none): the served sample is timed
// when its answer arrived and the database sample when its query was sent, so any error makes the lag look larger, never smaller.
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';

const DATABASE_EVERY_MS = 50;
const API_EVERY_MS = 100;

export type Staleness = { samples: number; maxMs: number; p99Ms: number; lastServed: number; lastStored: number };

export type StalenessProbe = Readonly<{ stop(): Promise<Staleness> }>;

export async function startStalenessProbe(databaseUrl: string, apiUrl: string, petitionId: string, slug: string): Promise<StalenessProbe> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const stored: { at: number; count: number }[] = [];
  const served: { at: number; count: number }[] = [];
  let stopped = false;

  const storedLoop = (async () => {
    while (!stopped) {
      const at = performance.now();
      const result = await client.query<{ count: string }>('SELECT COALESCE(sum(count), 0) AS count FROM signature_counters WHERE petition_id = $1', [
        petitionId,
      ]);
      stored.push({ at, count: Number(result.rows[0]!.count) });
      await sleep(DATABASE_EVERY_MS);
    }
  })();
  const servedLoop = (async () => {
    while (!stopped) {
      const response = await fetch(`${apiUrl}/v1/petitions/${slug}`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
      const body = response?.ok ? ((await response.json()) as { data: { signature_count: number } }) : undefined;
      if (body) served.push({ at: performance.now(), count: body.data.signature_count });
      await sleep(API_EVERY_MS);
    }
  })();

  return {
    async stop() {
      stopped = true;
      await Promise.all([storedLoop, servedLoop]);
      await client.end();
      const lags = served
        .map((sample) => {
          const firstLarger = stored.find((row) => row.count > sample.count);
          return firstLarger && firstLarger.at < sample.at ? sample.at - firstLarger.at : 0;
        })
        .sort((a, b) => a - b);
      const at = (p: number) => (lags.length === 0 ? 0 : lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)]!);
      return {
        samples: lags.length,
        maxMs: Math.round(lags.at(-1) ?? 0),
        p99Ms: Math.round(at(0.99)),
        lastServed: served.at(-1)?.count ?? 0,
        lastStored: stored.at(-1)?.count ?? 0,
      };
    },
  };
}
