import { expect } from 'chai';
import { insertApiKey } from '../../core/api-keys/queries.ts';
import { generateApiKey } from '../../core/api-keys/secrets.ts';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { createTestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

// Keys are made in the database: logging in through the API would spend the address's small budget.
async function freshApiKey(): Promise<{ raw: string; id: string }> {
  const user = await createTestUser();
  const key = generateApiKey('live');
  const row = await insertApiKey(testEnvironment().db, { userId: user.id, name: 'rate limit test', scope: 'full', environment: 'live', key });
  return { raw: key.raw, id: row.id };
}

/** The level of a bucket in the table the processes share (the test's view of their sync). */
async function sharedTokens(bucketKey: string): Promise<number | null> {
  return testEnvironment().db.maybeOneFirst(sql.type(z.object({ tokens: z.number() }))`SELECT tokens FROM rate_limit_buckets WHERE bucket_key = ${bucketKey}`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits', function () {
  this.timeout(60_000);
  const limits = { RALLY_RATE_LIMIT_RPS: '1', RALLY_RATE_LIMIT_BURST: '3' };
  let first: RunningApi;
  let second: RunningApi;

  before(async () => {
    [first, second] = await Promise.all([startApi(limits), startApi(limits)]);
  });
  after(async () => {
    await Promise.all([first.stop(), second.stop()]);
  });

  it('puts X-RateLimit-* headers on every answer, errors included', async () => {
    const headers = { authorization: `Bearer ${(await freshApiKey()).raw}` };
    for (const path of ['/v1/users/me', '/v1/no-such-route']) {
      const response = await fetch(`${first.baseUrl}${path}`, { headers });
      expect(response.headers.get('x-ratelimit-limit')).to.equal('3');
      expect(Number(response.headers.get('x-ratelimit-remaining'))).to.be.at.least(0);
      expect(Number(response.headers.get('x-ratelimit-reset'))).to.be.greaterThan(Date.now() / 1000 - 1);
    }
  });

  it('answers 429 rate-limited with Retry-After past the burst', async () => {
    const headers = { authorization: `Bearer ${(await freshApiKey()).raw}` };
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await fetch(`${first.baseUrl}/v1/users/me`, { headers })).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    const refused = await fetch(`${first.baseUrl}/v1/users/me`, { headers });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect((await json(refused)).type).to.match(/\/problems\/rate-limited$/);
  });

  it('holds one budget across API processes', async () => {
    // Two processes of their own, with a burst large enough to tell "its own budget" from "the shared one".
    const burst = 20;
    const limits = { RALLY_RATE_LIMIT_RPS: '1', RALLY_RATE_LIMIT_BURST: String(burst) };
    const [one, two] = await Promise.all([startApi(limits), startApi(limits)]);
    // Both serve traffic, as replicas behind a load balancer do: a process counts another as a peer, whose spends it must
    // write, only while that one charges limits too. The second is kept busy with a key of its own, within its refill.
    const bystander = { authorization: `Bearer ${(await freshApiKey()).raw}` };
    let testing = true;
    const keepBusy = (async () => {
      while (testing) {
        await fetch(`${two.baseUrl}/v1/users/me`, { headers: bystander });
        await pause(1_000);
      }
    })();
    try {
      const key = await freshApiKey();
      const headers = { authorization: `Bearer ${key.raw}` };
      for (let index = 0; index < burst; index += 1) expect((await fetch(`${one.baseUrl}/v1/users/me`, { headers })).status).to.equal(200);
      // A process folds a key's spending into one shared row at most once a second. The row then holds
      // the first process's spending, less what has refilled since (1 a second: under load the 20
      // requests themselves take seconds, so "below half the burst" is the rule, not "empty").
      const synced = async () => (((await sharedTokens(`key:${key.id}`)) ?? Infinity) < burst / 2 ? true : undefined);
      await eventually(synced, 20_000, 'the first process synced');
      // The second process alone would grant all of these; sharing the first's budget, it refuses
      // once it has synced, and its spending outruns the refill (5 a second against 1).
      const statuses: number[] = [];
      for (let index = 0; index < burst; index += 1) {
        statuses.push((await fetch(`${two.baseUrl}/v1/users/me`, { headers })).status);
        await pause(200);
      }
      expect(statuses).to.include(429);
    } finally {
      testing = false;
      await keepBusy;
      await Promise.all([one.stop(), two.stop()]);
    }
  });

  it('charges made-up credentials to the client address: a new Authorization header buys no new budget', async () => {
    await pause(3_500); // the address's bucket refills (1 a second, burst 3)
    const statuses: number[] = [];
    for (let index = 0; index < 8; index += 1) {
      const response = await fetch(`${first.baseUrl}/v1/users/me`, { headers: { authorization: `Bearer made-up-token-${index}` } });
      statuses.push(response.status);
    }
    expect(statuses).to.not.include(200);
    expect(statuses.slice(0, 2)).to.deep.equal([401, 401]);
    expect(statuses.slice(-3)).to.deep.equal([429, 429, 429]);
  });

  it('keeps a verified caller’s budget apart from its address’s', async () => {
    // The address is out of budget after the previous test; a real key still has its own.
    const headers = { authorization: `Bearer ${(await freshApiKey()).raw}` };
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await fetch(`${first.baseUrl}/v1/users/me`, { headers })).status);
    expect(statuses).to.deep.equal([200, 200, 200]);
  });

  it('limits callers without credentials per client IP, whatever Authorization they send to a public route', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1)
      statuses.push((await fetch(`${second.baseUrl}/v1`, { headers: { authorization: `Bearer public-${index}` } })).status);
    expect(statuses).to.include(429);
  });
});
