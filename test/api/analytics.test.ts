// Per-petition analytics and platform stats, served from the rollups. The test folds the rollup
// queue itself (the fold the schedule runs every minute), so it never waits for a schedule.
import { expect } from 'chai';
import { z } from 'zod';
import { foldSignatureBatch } from '../../core/analytics/fold.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login, type TestUser } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

async function foldAll() {
  while ((await foldSignatureBatch(testEnvironment().db, 1_000)) > 0);
}

describe('analytics', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let sharer: TestUser;
  let creatorToken: string;
  let strangerToken: string;
  let adminToken: string;
  let petition: { id: string; slug: string };
  let history: { id: string };
  const taskQueue = uniqueTaskQueue('analytics');

  const get = (path: string, token?: string) => fetch(`${api.baseUrl}${path}`, { headers: token ? bearer(token) : {} });
  const analytics = async (id: string, query = '', token = creatorToken) => {
    const response = await get(`/v1/petitions/${id}/analytics${query}`, token);
    expect(response.status, JSON.stringify(await response.clone().json())).to.equal(200);
    return (await json(response)).data;
  };
  const sign = (id: string, token: string, body: Record<string, unknown>) =>
    fetch(`${api.baseUrl}/v1/petitions/${id}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  before(async () => {
    const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_PAGE_VIEW_FLUSH_INTERVAL: '200ms' };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    sharer = await createTestUser();
    const tokenOf = async (user: TestUser) => (await login(api.baseUrl, user)).accessToken;
    creatorToken = await tokenOf(await createTestUser());
    strangerToken = await tokenOf(sharer);
    adminToken = await tokenOf(await createTestUser({ admin: true }));
    petition = await publishedPetition(api.baseUrl, creatorToken, { title: 'Count where our signers come from' });
    const signers = await createTokenUsers(5);
    const bodies = [
      { source: 'embed', display_location: 'Berlin' },
      { source: 'embed', display_location: 'Paris' },
      { ref: sharer.slug, display_location: 'Berlin' },
      { display_location: 'Berlin' },
      {},
    ];
    for (const [index, body] of bodies.entries()) expect((await sign(petition.id, signers[index]!.access_token, body)).status).to.equal(201);

    // A petition with signatures on known past days, written the way signing writes them.
    history = await publishedPetition(api.baseUrl, creatorToken, { title: 'A petition with a history' });
    const past = await createTokenUsers(3);
    const dated = [
      ['2026-01-01T10:00:00Z', 'DE', 'Berlin', null],
      ['2026-01-01T23:30:00Z', 'DE', 'Hamburg', null],
      ['2026-01-03T08:00:00Z', 'FR', 'Paris', 'embed'],
    ] as const;
    for (const [index, [day, country, city, source]] of dated.entries()) {
      await testEnvironment().db.query(sql.typeAlias('void')`
        INSERT INTO signatures (petition_id, user_id, created_at, country, city, source)
        VALUES (${history.id}, ${past[index]!.id}, ${day}, ${country}, ${city}, ${source})`);
    }
    await foldAll();
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  describe('GET /v1/petitions/{id}/analytics', () => {
    it('answers the creator and a platform admin; 403 to others, 401 without a bearer, 404 for an unknown petition', async () => {
      expect((await analytics(petition.id)).signature_count).to.equal(5);
      expect((await analytics(petition.id, '', adminToken)).signature_count).to.equal(5);
      const forbidden = await get(`/v1/petitions/${petition.id}/analytics`, strangerToken);
      expect(forbidden.status).to.equal(403);
      expect((await json(forbidden)).code).to.equal('not_owner');
      expect((await get(`/v1/petitions/${petition.id}/analytics`)).status).to.equal(401);
      expect((await get('/v1/petitions/00000000-0000-4000-8000-000000000000/analytics', creatorToken)).status).to.equal(404);
    });

    it('fills every day of the series, with the running total from before the range', async () => {
      const daily = await analytics(history.id, '?start_date=2026-01-01&end_date=2026-01-04');
      expect(daily.series).to.deep.equal([
        { period_start: '2026-01-01', signatures: 2, cumulative: 2 },
        { period_start: '2026-01-02', signatures: 0, cumulative: 2 },
        { period_start: '2026-01-03', signatures: 1, cumulative: 3 },
        { period_start: '2026-01-04', signatures: 0, cumulative: 3 },
      ]);
      const later = await analytics(history.id, '?start_date=2026-01-02&end_date=2026-01-03');
      expect(later.series).to.deep.equal([
        { period_start: '2026-01-02', signatures: 0, cumulative: 2 },
        { period_start: '2026-01-03', signatures: 1, cumulative: 3 },
      ]);
    });

    it('groups by week (from Monday) and by month', async () => {
      const weekly = await analytics(history.id, '?start_date=2026-01-01&end_date=2026-01-14&granularity=week');
      expect(weekly.series).to.deep.equal([
        { period_start: '2025-12-29', signatures: 3, cumulative: 3 },
        { period_start: '2026-01-05', signatures: 0, cumulative: 3 },
        { period_start: '2026-01-12', signatures: 0, cumulative: 3 },
      ]);
      const monthly = await analytics(history.id, '?start_date=2025-12-15&end_date=2026-02-10&granularity=month');
      expect(monthly.series.map((period: { period_start: string; signatures: number }) => [period.period_start, period.signatures])).to.deep.equal([
        ['2025-12-01', 0],
        ['2026-01-01', 3],
        ['2026-02-01', 0],
      ]);
    });

    it('breaks signatures down by country, city and traffic source', async () => {
      const data = await analytics(petition.id);
      expect(data.geography.countries).to.deep.include.members([
        { country: 'DE', signatures: 3 },
        { country: 'FR', signatures: 1 },
        { country: null, signatures: 1 },
      ]);
      expect(data.geography.cities[0]).to.deep.equal({ city: 'Berlin', country: 'DE', signatures: 3 });
      expect(data.traffic_sources).to.deep.equal([
        { source: 'direct', signatures: 2 },
        { source: 'embed', signatures: 2 },
        { source: `share:${sharer.slug}`, signatures: 1 },
      ]);
      const today = new Date().toISOString().slice(0, 10);
      expect(data.series.at(-1)).to.deep.equal({ period_start: today, signatures: 5, cumulative: 5 });
      expect(data.as_of).to.be.a('string');
    });

    it('breaks down countries, cities and sources within start_date and end_date only', async () => {
      const firstDay = await analytics(history.id, '?start_date=2026-01-01&end_date=2026-01-01');
      expect(firstDay.geography.countries).to.deep.equal([{ country: 'DE', signatures: 2 }]);
      expect(firstDay.geography.cities).to.deep.equal([
        { city: 'Berlin', country: 'DE', signatures: 1 },
        { city: 'Hamburg', country: 'DE', signatures: 1 },
      ]);
      expect(firstDay.traffic_sources).to.deep.equal([{ source: 'direct', signatures: 2 }]);
      const later = await analytics(history.id, '?start_date=2026-01-02&end_date=2026-01-31');
      expect(later.geography.countries).to.deep.equal([{ country: 'FR', signatures: 1 }]);
      expect(later.geography.cities).to.deep.equal([{ city: 'Paris', country: 'FR', signatures: 1 }]);
      expect(later.traffic_sources).to.deep.equal([{ source: 'embed', signatures: 1 }]);
      const before = await analytics(history.id, '?start_date=2025-12-01&end_date=2025-12-31');
      expect([before.geography.countries, before.geography.cities, before.traffic_sources]).to.deep.equal([[], [], []]);
      const whole = await analytics(history.id, '?start_date=2025-12-31&end_date=2026-01-03');
      expect(whole.geography.countries).to.deep.equal([
        { country: 'DE', signatures: 2 },
        { country: 'FR', signatures: 1 },
      ]);
      expect(whole.traffic_sources).to.deep.equal([
        { source: 'direct', signatures: 2 },
        { source: 'embed', signatures: 1 },
      ]);
    });

    it('counts page views of the petition, written in batches', async () => {
      for (let view = 0; view < 3; view += 1) expect((await get(`/v1/petitions/${petition.slug}`)).status).to.equal(200);
      await eventually(async () => ((await analytics(petition.id)).page_views === 3 ? true : undefined), 10_000, 'three page views');
    });

    it('counts views of the petition page and of its widget apart, written in batches', async () => {
      const start = await analytics(petition.id);
      for (let view = 0; view < 2; view += 1) expect((await get(`/p/${petition.slug}`)).status).to.equal(200);
      for (let view = 0; view < 3; view += 1) expect((await get(`/embed/p/${petition.slug}?theme=dark`)).status).to.equal(200);
      await eventually(
        async () => {
          const now = await analytics(petition.id);
          return now.page_views === start.page_views + 2 && now.widget_views === start.widget_views + 3 ? true : undefined;
        },
        10_000,
        'two page views and three widget views',
      );
    });

    it('takes a removed signature off after the next fold', async () => {
      const [signer] = await createTokenUsers(1);
      expect((await sign(petition.id, signer!.access_token, {})).status).to.equal(201);
      await foldAll();
      // Answers are kept until the fold announces new figures, which reach the API a moment after it commits.
      await eventually(async () => ((await analytics(petition.id)).signature_count === 6 ? true : undefined), 5_000, 'the fold counting the signature');
      expect(
        (await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/me`, { method: 'DELETE', headers: bearer(signer!.access_token) })).status,
      ).to.equal(204);
      await foldAll();
      const data = await eventually(
        async () => {
          const now = await analytics(petition.id);
          return now.signature_count === 5 ? now : undefined;
        },
        5_000,
        'the fold taking the removed signature off',
      );
      expect(data.traffic_sources).to.deep.include({ source: 'direct', signatures: 2 });
    });

    it('answers 422 to a sign request whose source is not a lowercase token', async () => {
      const [signer] = await createTokenUsers(1);
      const response = await sign(petition.id, signer!.access_token, { source: 'Not A Source!' });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors.map((error: { field: string }) => error.field)).to.deep.equal(['source']);
    });

    it('answers 422 to an end before the start, a range over two years and an unknown granularity', async () => {
      for (const [query, field] of [
        ['?start_date=2026-02-01&end_date=2026-01-01', 'end_date'],
        ['?start_date=2024-01-01&end_date=2026-01-02', 'start_date'],
        ['?granularity=year', 'granularity'],
        ['?start_date=2026-13-01', 'start_date'],
      ]) {
        const response = await get(`/v1/petitions/${petition.id}/analytics${query}`, creatorToken);
        expect(response.status, query).to.equal(422);
        expect(
          (await json(response)).errors.map((error: { field: string }) => error.field),
          query,
        ).to.include(field);
      }
    });
  });

  describe('GET /v1/analytics/stats', () => {
    it('answers daily totals, trending petitions and countries without credentials', async () => {
      // A score of 1,000,000 now, in the stored forward-decay form: ln(score) + days since 2026-01-01.
      const storedAt = Date.now();
      const stored = Math.log(1_000_000) + (storedAt - Date.parse('2026-01-01T00:00:00Z')) / 86_400_000;
      await testEnvironment().db.query(sql.typeAlias('void')`UPDATE petitions SET trending_score = ${stored} WHERE id = ${petition.id}`);
      const response = await get('/v1/analytics/stats?limit=5');
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(data.daily).to.have.length(30);
      const today = data.daily.at(-1);
      expect(today.date).to.equal(new Date().toISOString().slice(0, 10));
      expect(today.signatures).to.be.at.least(5);
      expect(today.new_petitions).to.be.at.least(2);
      expect(data.trending[0]).to.deep.include({ id: petition.id, slug: petition.slug, signature_count: 5 });
      // The score decays by e per day (about 11.6 a second at a million) while the request runs.
      const decayedAtMost = 1_000_000 * Math.exp(-(Date.now() - storedAt) / 86_400_000);
      expect(data.trending[0].trending_score).to.be.within(decayedAtMost - 1, 1_000_000 + 1);
      expect(data.trending.length).to.be.at.most(5);
      expect(data.geography.map((row: { country: string }) => row.country)).to.include('DE');
    });

    it('narrows to one publicly listed petition, and answers 404 for any other', async () => {
      const { data } = await json(await get(`/v1/analytics/stats?petition_id=${history.id}&start_date=2026-01-01&end_date=2026-01-03`));
      expect(data.daily.map((day: { signatures: number }) => day.signatures)).to.deep.equal([2, 0, 1]);
      expect(data.geography).to.deep.equal([
        { country: 'DE', signatures: 2 },
        { country: 'FR', signatures: 1 },
      ]);
      const january2 = (await json(await get(`/v1/analytics/stats?petition_id=${history.id}&start_date=2026-01-02&end_date=2026-01-03`))).data;
      expect(january2.geography).to.deep.equal([{ country: 'FR', signatures: 1 }]);
      const hidden = await publishedPetition(api.baseUrl, creatorToken, { title: 'A private petition here', visibility: 'private' });
      expect((await get(`/v1/analytics/stats?petition_id=${hidden.id}`)).status).to.equal(404);
      const count = await testEnvironment().db.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM signature_rollup_queue WHERE petition_id = ${petition.id}`,
      );
      expect(count).to.equal(0);
    });

    it('answers 422 to an end before the start and a limit over 100', async () => {
      expect((await get('/v1/analytics/stats?start_date=2026-02-01&end_date=2026-01-01')).status).to.equal(422);
      expect((await get('/v1/analytics/stats?limit=101')).status).to.equal(422);
    });
  });
});
