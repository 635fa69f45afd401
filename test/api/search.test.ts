// Search and suggestions over real petitions made through the API. Every petition of this file
// carries one random marker word, so other test files' petitions in the same database never match.
import { expect } from 'chai';
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetition, publishedPetition, transition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const randomWord = (length: number) => Array.from({ length }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(20)]).join('');

describe('search', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  const taskQueue = uniqueTaskQueue('search');
  const marker = randomWord(9);
  const tag = `tag-${marker}`;
  const ids: Record<'wetlands' | 'ecole' | 'cyclists' | 'draft' | 'private' | 'unlisted' | 'review' | 'deleted', string> = {} as never;
  let environmentCategory: string;

  const get = (path: string) => fetch(`${api.baseUrl}${path}`);
  const search = async (query: Record<string, string>) => {
    const response = await get(`/v1/search/petitions?${new URLSearchParams(query)}`);
    expect(response.status, JSON.stringify(await response.clone().json())).to.equal(200);
    return json(response);
  };
  const idsOf = (body: { data: { id: string }[] }) => body.data.map((petition) => petition.id);

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const categories = (await json(await get('/v1/categories'))).data as { id: string; slug: string }[];
    environmentCategory = categories.find((category) => category.slug === 'environment')!.id;
    const english = `We ask the council to protect the ${marker} wetlands. Every signature counts for the birds and the water of this valley.`;
    ids.wetlands = (
      await publishedPetition(api.baseUrl, token, {
        title: `Save the ${marker} wetlands now`,
        description: english,
        tags: [tag, 'water'],
        locationCountry: 'GB',
        categoryId: environmentCategory,
      })
    ).id;
    ids.ecole = (
      await publishedPetition(api.baseUrl, token, {
        title: `Sauvons l'École ${marker} du village`,
        description: `Nous demandons que l'école du village reste ouverte pour les enfants et les familles de ${marker}.`,
        tags: [tag],
        locationCountry: 'FR',
      })
    ).id;
    expect((await transition(api.baseUrl, token, ids.ecole, 'close')).status).to.equal(200);
    ids.cyclists = (
      await publishedPetition(api.baseUrl, token, {
        title: `A ${marker} victory for cyclists`,
        description: `The town of ${marker} should build safe bike lanes on the main road for the children.`,
        locationCountry: 'de',
      })
    ).id;
    expect((await transition(api.baseUrl, token, ids.cyclists, 'victory')).status).to.equal(200);
    // Never searchable: a draft, a private, an unlisted, one under review and a deleted one.
    const hidden = { title: `Hidden ${marker} petition`, tags: [tag] };
    ids.draft = (await createPetition(api.baseUrl, token, hidden)).id;
    ids.private = (await publishedPetition(api.baseUrl, token, { ...hidden, visibility: 'private' })).id;
    ids.unlisted = (await publishedPetition(api.baseUrl, token, { ...hidden, visibility: 'unlisted' })).id;
    ids.review = (await publishedPetition(api.baseUrl, token, hidden)).id;
    ids.deleted = (await publishedPetition(api.baseUrl, token, hidden)).id;
    const { db } = testEnvironment();
    await db.query(sql.typeAlias('void')`UPDATE petitions SET status = 'under_review' WHERE id = ${ids.review}`);
    expect((await fetch(`${api.baseUrl}/v1/petitions/${ids.deleted}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
    // The rolled-up popularity columns the rankings schedule maintains, set here to known values.
    for (const [id, count, trending] of [
      [ids.wetlands, 5, 0.5],
      [ids.ecole, 50, 0.1],
      [ids.cyclists, 0, 9],
    ] as const) {
      await db.query(sql.typeAlias('void')`UPDATE petitions SET signature_count = ${count}, trending_score = ${trending} WHERE id = ${id}`);
    }
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  describe('GET /v1/search/petitions', () => {
    it('finds the publicly listed matches only, never drafts, private, unlisted, under_review or deleted ones', async () => {
      const body = await search({ q: marker });
      expect(idsOf(body)).to.have.members([ids.wetlands, ids.ecole, ids.cyclists]);
      expect(body.pagination).to.deep.equal({ next_cursor: null, has_more: false });
      expect(body.meta.request_id).to.be.a('string');
      expect(body.data[0]).to.include.keys('id', 'slug', 'title', 'description', 'status', 'signature_count', 'creator', 'created_at');
      expect(idsOf(await search({ tag }))).to.have.members([ids.wetlands, ids.ecole]);
    });

    it('stems words: "signatures" finds a petition that says "signature"', async () => {
      expect(idsOf(await search({ q: `signatures ${marker}` }))).to.deep.equal([ids.wetlands]);
    });

    it('ignores accents and stems French: "ecole" and "écoles" find "École"', async () => {
      expect(idsOf(await search({ q: `ecole ${marker}` }))).to.deep.equal([ids.ecole]);
      expect(idsOf(await search({ q: `ÉCOLES ${marker}` }))).to.deep.equal([ids.ecole]);
    });

    it('takes web-search syntax: phrases, -excluded words and or', async () => {
      expect(idsOf(await search({ q: `"${marker} wetlands"` }))).to.deep.equal([ids.wetlands]);
      expect(idsOf(await search({ q: `${marker} -cyclists -wetlands` }))).to.deep.equal([ids.ecole]);
      expect(idsOf(await search({ q: `${marker} wetlands or ${marker} cyclists` }))).to.have.members([ids.wetlands, ids.cyclists]);
    });

    it('filters by status, category, country (any case) and tag', async () => {
      expect(idsOf(await search({ q: marker, status: 'closed' }))).to.deep.equal([ids.ecole]);
      expect(idsOf(await search({ q: marker, status: 'victory' }))).to.deep.equal([ids.cyclists]);
      expect(idsOf(await search({ q: marker, category: environmentCategory }))).to.deep.equal([ids.wetlands]);
      expect(idsOf(await search({ q: marker, country: 'fr' }))).to.deep.equal([ids.ecole]);
      expect(idsOf(await search({ q: marker, country: 'DE' }))).to.deep.equal([ids.cyclists]);
      expect(idsOf(await search({ q: marker, tag: 'water' }))).to.deep.equal([ids.wetlands]);
    });

    it('counts facets for the same query, each without its own filter', async () => {
      const body = await search({ q: marker, status: 'closed' });
      expect(body.facets.status).to.deep.equal([
        { value: 'active', count: 1 },
        { value: 'closed', count: 1 },
        { value: 'victory', count: 1 },
      ]);
      expect(body.facets.country).to.deep.equal([{ value: 'FR', count: 1 }]);
      expect(body.facets.tags).to.deep.equal([{ value: tag, count: 1 }]);
      expect(body.facets.category).to.deep.equal([]);
      const all = await search({ q: marker, country: 'GB' });
      expect(all.facets.country).to.deep.equal([
        { value: 'DE', count: 1 },
        { value: 'FR', count: 1 },
        { value: 'GB', count: 1 },
      ]);
      expect(all.facets.category).to.deep.equal([{ value: environmentCategory, count: 1 }]);
      expect(all.facets.tags).to.deep.equal([
        { value: tag, count: 1 },
        { value: 'water', count: 1 },
      ]);
      expect(all.facets.status).to.deep.equal([{ value: 'active', count: 1 }]);
    });

    it('counts each facet under the other filters, even when no petition passes them all', async () => {
      const body = await search({ q: marker, status: 'active', country: 'DE' });
      expect(body.data).to.deep.equal([]);
      expect(body.pagination).to.deep.equal({ next_cursor: null, has_more: false });
      expect(body.facets.status).to.deep.equal([{ value: 'victory', count: 1 }]);
      expect(body.facets.country).to.deep.equal([{ value: 'GB', count: 1 }]);
      expect(body.facets.tags).to.deep.equal([]);
      expect(body.facets.category).to.deep.equal([]);
    });

    it('pages a filtered search by relevance with a keyset cursor', async () => {
      const whole = idsOf(await search({ q: marker, tag }));
      const first = await search({ q: marker, tag, limit: '1' });
      expect(first.pagination.has_more).to.equal(true);
      const second = await search({ q: marker, tag, limit: '1', cursor: first.pagination.next_cursor });
      expect(second.pagination).to.deep.equal({ next_cursor: null, has_more: false });
      expect([...idsOf(first), ...idsOf(second)]).to.deep.equal(whole);
      expect(whole).to.have.members([ids.wetlands, ids.ecole]);
      expect(first.facets).to.deep.equal(second.facets);
    });

    it('sorts by recent, signatures and trending', async () => {
      expect(idsOf(await search({ q: marker, sort: 'recent' }))).to.deep.equal([ids.cyclists, ids.ecole, ids.wetlands]);
      expect(idsOf(await search({ q: marker, sort: 'signatures' }))).to.deep.equal([ids.ecole, ids.wetlands, ids.cyclists]);
      expect(idsOf(await search({ q: marker, sort: 'trending' }))).to.deep.equal([ids.cyclists, ids.wetlands, ids.ecole]);
    });

    it('ranks a title match above a description-only match by relevance', async () => {
      // "wetlands" is in one title; "children" only in two descriptions.
      const body = await search({ q: `${marker} wetlands or ${marker} children` });
      expect(idsOf(body)[0]).to.equal(ids.wetlands);
    });

    for (const sort of ['relevance', 'recent', 'signatures', 'trending']) {
      it(`pages with a keyset cursor when sorted by ${sort}`, async () => {
        const whole = idsOf(await search({ q: marker, sort }));
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const page: { data: { id: string }[]; pagination: { next_cursor: string | null } } = await search({
            q: marker,
            sort,
            limit: '1',
            ...(cursor ? { cursor } : {}),
          });
          walked.push(...idsOf(page));
          cursor = page.pagination.next_cursor;
        } while (cursor);
        expect(walked).to.deep.equal(whole);
        expect(walked).to.have.length(3);
      });
    }

    it('answers 422 to an unknown sort, a status outside active/closed/victory and a country that is not ISO alpha-2', async () => {
      for (const [query, field] of [
        ['sort=popular', 'sort'],
        ['status=draft', 'status'],
        ['country=XX', 'country'],
        ['country=FRA', 'country'],
        ['limit=101', 'limit'],
      ]) {
        const response = await get(`/v1/search/petitions?q=${marker}&${query}`);
        expect(response.status, query).to.equal(422);
        const problem = await json(response);
        expect(problem.type).to.match(/\/problems\/validation-failed$/);
        expect(problem.errors.map((error: { field: string }) => error.field)).to.include(field);
      }
    });

    it('answers 400 to a cursor it did not issue', async () => {
      const response = await get(`/v1/search/petitions?q=${marker}&cursor=bm90LWEtY3Vyc29y`);
      expect(response.status).to.equal(400);
    });
  });

  describe('GET /v1/search/suggest', () => {
    const suggest = async (q: string, limit?: number) => {
      const response = await get(`/v1/search/suggest?${new URLSearchParams({ q, ...(limit ? { limit: String(limit) } : {}) })}`);
      expect(response.status).to.equal(200);
      return (await json(response)).data as { title: string; slug: string; signature_count: number }[];
    };

    it('suggests titles for a prefix, most similar then most signed first, public ones only', async () => {
      const suggestions = await suggest(marker);
      const slugs = suggestions.map((suggestion) => suggestion.slug);
      expect(slugs).to.have.length(3);
      expect(suggestions[0]).to.have.keys('title', 'slug', 'signature_count');
      const bySlug = new Map(
        await Promise.all([ids.ecole, ids.wetlands, ids.cyclists].map(async (id) => [(await json(await get(`/v1/petitions/${id}`))).data.slug, id] as const)),
      );
      expect(slugs.map((slug) => bySlug.get(slug))).to.deep.equal([ids.ecole, ids.wetlands, ids.cyclists]);
      expect((await suggest(marker.slice(0, 4))).map((suggestion) => suggestion.slug)).to.include.members(slugs);
    });

    it('tolerates one wrong letter in a word of five or more letters', async () => {
      for (const position of [0, 2, 4, 8]) {
        const typo = marker.slice(0, position) + (marker[position] === 'a' ? 'e' : 'a') + marker.slice(position + 1);
        expect(
          (await suggest(typo)).map((suggestion) => suggestion.title),
          typo,
        ).to.include(`Save the ${marker} wetlands now`);
      }
    });

    it('keeps to the limit', async () => {
      expect(await suggest(marker, 1)).to.have.length(1);
    });

    it('answers 422 to a prefix shorter than 2 characters and a limit outside 1–10', async () => {
      for (const query of ['q=a', 'q=', `q=${marker}&limit=11`, `q=${marker}&limit=0`, '']) {
        expect((await get(`/v1/search/suggest?${query}`)).status, query).to.equal(422);
      }
    });
  });

  describe('when search is slow', () => {
    it('answers 503 search-unavailable with Retry-After once RALLY_SEARCH_TIMEOUT trips, never a 500', async () => {
      const slowApi = await startApi({ RALLY_TASK_QUEUE: taskQueue, RALLY_SEARCH_TIMEOUT: '300ms' });
      // A lock on petitions makes every search wait past its time limit.
      const blocker = new pg.Client({ connectionString: testEnvironment().databaseUrl });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE petitions IN ACCESS EXCLUSIVE MODE');
        for (const path of [`/v1/search/petitions?q=${marker}`, `/v1/search/suggest?q=${marker}`]) {
          const started = Date.now();
          const response = await fetch(`${slowApi.baseUrl}${path}`);
          expect(response.status, path).to.equal(503);
          expect(Date.now() - started).to.be.below(5_000);
          expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
          const problem = await json(response);
          expect(problem.type).to.match(/\/problems\/search-unavailable$/);
          expect(problem.code).to.equal('search_unavailable');
        }
      } finally {
        await blocker.query('ROLLBACK');
        await blocker.end();
      }
      // Once the lock is gone, search answers again (on a loaded machine, perhaps not the very first query within 300 ms).
      await eventually(
        async () => ((await fetch(`${slowApi.baseUrl}/v1/search/petitions?q=${marker}`)).status === 200 ? true : undefined),
        20_000,
        'search to answer 200 again after the lock is released',
      );
      await slowApi.stop();
    });
  });

  describe('a question asked again', () => {
    it('no longer finds a petition moments after it is deleted, in search and in suggestions', async () => {
      const word = randomWord(11);
      const doomed = (await publishedPetition(api.baseUrl, token, { title: `Doomed ${word} meadow`, tags: [tag] })).id;
      const suggest = async () => (await json(await get(`/v1/search/suggest?q=${word}`))).data as { slug: string }[];
      await eventually(async () => (idsOf(await search({ q: word })).includes(doomed) ? true : undefined), 5_000, 'the new petition found');
      await eventually(async () => ((await suggest()).length === 1 ? true : undefined), 5_000, 'the new petition suggested');
      expect((await fetch(`${api.baseUrl}/v1/petitions/${doomed}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
      await eventually(async () => (idsOf(await search({ q: word })).length === 0 ? true : undefined), 5_000, 'the deleted petition gone from search');
      await eventually(async () => ((await suggest()).length === 0 ? true : undefined), 5_000, 'the deleted petition gone from suggestions');
    });
  });

  describe('the search document', () => {
    it('is kept current when a petition is edited', async () => {
      const renamed = randomWord(10);
      const response = await fetch(`${api.baseUrl}/v1/petitions/${ids.wetlands}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ tags: [tag, 'water', renamed] }),
      });
      expect(response.status).to.equal(200);
      expect(idsOf(await search({ q: renamed }))).to.deep.equal([ids.wetlands]);
      const config = await testEnvironment().db.oneFirst(
        sql.type(z.object({ search_config: z.string() }))`SELECT search_config::text FROM petitions WHERE id = ${ids.ecole}`,
      );
      expect(config).to.equal('french');
    });
  });
});
