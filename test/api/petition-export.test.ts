import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTokenUsers } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Token = { id: string; access_token: string };

describe('petition export', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  // Each caller may export 10 times a minute: the tests spread their requests over several callers.
  let alice: Token, bob: Token, reader: Token;
  const petitions: Record<'open' | 'creatorOnly' | 'secret' | 'draft', { id: string }> = {} as never;
  const taskQueue = uniqueTaskQueue('petition-export');

  const sign = (petitionId: string, token: string, body: Record<string, unknown> = {}) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });
  const exportAs = (caller: Token, query: string) => fetch(`${api.baseUrl}/v1/petitions/export?${query}`, { headers: bearer(caller.access_token) });
  const ids = (rows: { id?: string; petition_id?: string }[], key: 'id' | 'petition_id' = 'id') => rows.map((row) => row[key]);

  // Bob owns an open petition (two signatures, one anonymous), one whose signatures only he may see,
  // a private one and a draft.
  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    let named: Token, hidden: Token;
    [alice, bob, reader, named, hidden] = (await createTokenUsers(5)) as [Token, Token, Token, Token, Token];
    petitions.open = await publishedPetition(api.baseUrl, bob.access_token, { title: 'Open petition, comma, "quotes"' });
    petitions.creatorOnly = await publishedPetition(api.baseUrl, bob.access_token, { signaturePrivacy: 'creator_only' });
    petitions.secret = await publishedPetition(api.baseUrl, bob.access_token, { visibility: 'private' });
    petitions.draft = await createPetition(api.baseUrl, bob.access_token);
    for (const response of [
      await sign(petitions.open.id, named.access_token, { comment: 'Named' }),
      await sign(petitions.open.id, hidden.access_token, { is_anonymous: true }),
      await sign(petitions.creatorOnly.id, named.access_token),
    ])
      expect(response.status).to.equal(201);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  it("exports someone else's public, published petitions only, and all of one's own, oldest first", async () => {
    const others = await exportAs(alice, `creatorId=${bob.id}`);
    expect(others.status).to.equal(200);
    expect(others.headers.get('content-type')).to.match(/^application\/json/);
    expect(ids(await json(others))).to.deep.equal([petitions.open.id, petitions.creatorOnly.id]);
    const own = await json(await exportAs(bob, `creatorId=${bob.id}`));
    expect(ids(own)).to.deep.equal([petitions.open.id, petitions.creatorOnly.id, petitions.secret.id, petitions.draft.id]);
    expect(own[0]).to.include({ status: 'active', signature_count: 2, creator_id: bob.id });
    expect(ids(await json(await exportAs(bob, `creatorId=${bob.id}&status=draft`)))).to.deep.equal([petitions.draft.id]);
  });

  it('with includeSignatures, gives one row per signature, creator-only lists and emails to the creator alone', async () => {
    const seen = await json(await exportAs(alice, `creatorId=${bob.id}&includeSignatures=true`));
    expect(ids(seen, 'petition_id')).to.deep.equal([petitions.open.id, petitions.open.id]);
    expect(seen.map((row: { signer_email: unknown }) => row.signer_email)).to.deep.equal([null, null]);
    expect(seen[1]).to.include({ is_anonymous: true, signer_name: null });
    const creator = await json(await exportAs(bob, `creatorId=${bob.id}&includeSignatures=true`));
    expect(ids(creator, 'petition_id')).to.deep.equal([petitions.open.id, petitions.open.id, petitions.creatorOnly.id]);
    expect(creator[0].signer_email).to.match(/@/);
    expect(creator[1].signer_email).to.equal(null);
  });

  it("gives signers' IP-derived city and country to the petition's creator alone", async () => {
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE signatures SET city = 'Lyon', country = 'FR' WHERE petition_id = ${petitions.open.id}`);
    const seen = await json(await exportAs(alice, `creatorId=${bob.id}&includeSignatures=true`));
    expect(seen.map((row: { city: unknown; country: unknown }) => [row.city, row.country])).to.deep.equal([
      [null, null],
      [null, null],
    ]);
    const creator = await json(await exportAs(bob, `creatorId=${bob.id}&includeSignatures=true`));
    expect(creator[0]).to.include({ city: 'Lyon', country: 'FR' });
  });

  it('writes CSV, and pages with a cursor named in X-Next-Cursor and Link', async () => {
    const csv = await exportAs(reader, `creatorId=${bob.id}&format=csv&limit=1`);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).to.match(/^id,slug,title,status,/);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.include('"Open petition, comma, ""quotes"""');
    const cursor = csv.headers.get('x-next-cursor')!;
    expect(csv.headers.get('link')).to.equal(`</v1/petitions/export?creatorId=${bob.id}&format=csv&limit=1&cursor=${cursor}>; rel="next"`);
    const last = await exportAs(reader, `creatorId=${bob.id}&limit=1&cursor=${cursor}`);
    expect(ids(await json(last))).to.deep.equal([petitions.creatorOnly.id]);
    expect(last.headers.get('x-next-cursor')).to.equal(null);
    expect((await exportAs(reader, `includeSignatures=true&cursor=${cursor}`)).status).to.equal(400);
  });

  it('answers 422 for bad parameters and 401 without a token', async () => {
    for (const query of ['limit=1001', 'limit=0', 'format=xml', 'status=lost', 'includeSignatures=maybe', 'creatorId=bob']) {
      const response = await exportAs(reader, query);
      expect(response.status, query).to.equal(422);
      expect((await json(response)).errors).to.have.length(1);
    }
    expect((await fetch(`${api.baseUrl}/v1/petitions/export`)).status).to.equal(401);
  });

  it('answers 429 with Retry-After past 10 exports a minute', async () => {
    const [caller] = (await createTokenUsers(1)) as [Token];
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) statuses.push((await exportAs(caller, `creatorId=${bob.id}&limit=1`)).status);
    expect(statuses).to.deep.equal([...Array<number>(10).fill(200), 429]);
    const refused = await exportAs(caller, 'limit=1');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect((await json(refused)).code).to.equal('export_limit');
  });
});
