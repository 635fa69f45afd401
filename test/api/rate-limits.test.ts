import { expect } from 'chai';
import { json } from '../support/http.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

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
    for (const path of ['/v1', '/v1/no-such-route']) {
      const response = await fetch(`${first.baseUrl}${path}`, { headers: { authorization: 'Bearer headers-test' } });
      expect(response.headers.get('x-ratelimit-limit')).to.equal('3');
      expect(Number(response.headers.get('x-ratelimit-remaining'))).to.be.at.least(0);
      expect(Number(response.headers.get('x-ratelimit-reset'))).to.be.greaterThan(Date.now() / 1000 - 1);
    }
  });

  it('answers 429 rate-limited with Retry-After past the burst', async () => {
    const headers = { authorization: 'Bearer burst-test' };
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await fetch(`${first.baseUrl}/v1`, { headers })).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    const refused = await fetch(`${first.baseUrl}/v1`, { headers });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect((await json(refused)).type).to.match(/\/problems\/rate-limited$/);
  });

  it('holds one budget across API processes', async () => {
    // Each process alone would still have tokens left; together they have spent twice the burst.
    const headers = { authorization: 'Bearer shared-test' };
    for (let index = 0; index < 3; index += 1) expect((await fetch(`${first.baseUrl}/v1`, { headers })).status).to.equal(200);
    for (let index = 0; index < 2; index += 1) expect((await fetch(`${second.baseUrl}/v1`, { headers })).status).to.equal(200);
    // Both processes fold their spending into the shared bucket every 250 ms.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const response = await fetch(`${second.baseUrl}/v1`, { headers });
    expect(response.status).to.equal(429);
  });

  it('limits callers without credentials per client IP', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await fetch(`${second.baseUrl}/v1`)).status);
    expect(statuses).to.include(429);
  });
});
