import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { cursorWithNul, json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login, type TestUser } from '../support/identity.ts';
import { createPetition, publishedPetition, transition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('signatures', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creator: TestUser;
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('signatures');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creator = await createTestUser({ name: 'Creator Person' });
    creatorToken = (await login(api.baseUrl, creator)).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const sign = (petitionId: string, token: string, body: Record<string, unknown> = {}) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  describe('POST /v1/petitions/{id}/signatures', () => {
    it('signs, counts, and answers 409 to a second signature by the same person', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      const response = await sign(petition.id, signer!.access_token, { comment: 'Yes!', display_location: 'Berlin' });
      expect(response.status).to.equal(201);
      expect((await json(response)).data).to.include({
        petition_id: petition.id,
        user_id: signer!.id,
        signature_count: 1,
        milestone_reached: false,
        is_anonymous: false,
      });
      const again = await sign(petition.id, signer!.access_token);
      expect(again.status).to.equal(409);
      expect((await json(again)).code).to.equal('already_signed');
    });

    it('answers 409 with the reason for a petition that is not active', async () => {
      const draft = await createPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      const response = await sign(draft.id, signer!.access_token);
      expect(response.status).to.equal(404);
      const closed = await publishedPetition(api.baseUrl, creatorToken);
      await transition(api.baseUrl, creatorToken, closed.id, 'close');
      const refused = await sign(closed.id, signer!.access_token);
      expect(refused.status).to.equal(409);
      expect((await json(refused)).detail).to.include('closed');
    });

    it('keeps count, uniqueness and milestones exact under concurrent signing', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken, { signatureGoal: 40 });
      const signers = await createTokenUsers(60);
      // Every signer signs twice at the same moment: one of each pair must be refused.
      const responses = await Promise.all(signers.flatMap((signer) => [sign(petition.id, signer.access_token), sign(petition.id, signer.access_token)]));
      const bodies = await Promise.all(responses.map((response) => json(response)));
      expect(responses.filter((response) => response.status === 201)).to.have.length(60);
      expect(responses.filter((response) => response.status === 409)).to.have.length(60);
      const { db } = testEnvironment();
      const milestones = await db.anyFirst(
        sql.type(z.object({ threshold: z.number() }))`SELECT threshold FROM petition_milestones WHERE petition_id = ${petition.id} ORDER BY threshold`,
      );
      expect(milestones).to.deep.equal([10, 20, 25, 30, 40, 50]);
      const flagged = bodies.filter((body) => body.data?.milestone_reached === true);
      expect(flagged.length).to.be.at.least(1).and.at.most(6);
      const events = await db.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events WHERE petition_id = ${petition.id} AND type = 'signature.milestone'`,
      );
      expect(events).to.equal(6);
      const shown = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`));
      expect(shown.data.signature_count).to.equal(60);
    });

    it('needs the access code to sign a private petition', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken, { visibility: 'private' });
      const accessCode = (await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, { headers: bearer(creatorToken) }))).data.access_code;
      const [signer] = await createTokenUsers(1);
      const refused = await sign(petition.id, signer!.access_token);
      expect(refused.status).to.equal(403);
      expect((await json(refused)).code).to.equal('access_code_required');
      expect((await sign(petition.id, signer!.access_token, { access_code: accessCode.toLowerCase() })).status).to.equal(201);
    });

    it('credits a share to the user whose ref link was used', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      expect((await sign(petition.id, signer!.access_token, { ref: creator.slug })).status).to.equal(201);
      const referrer = await testEnvironment().db.oneFirst(
        sql.type(z.object({ referrer_id: z.string().nullable() }))`SELECT referrer_id FROM signatures WHERE petition_id = ${petition.id}`,
      );
      expect(referrer).to.equal(creator.id);
    });
  });

  describe('GET /v1/petitions/{id}/signatures', () => {
    it('lists signatures with anonymous ones as user null, and total_count', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [named, hidden] = await createTokenUsers(2);
      await sign(petition.id, named!.access_token, { comment: 'Named' });
      await sign(petition.id, hidden!.access_token, { is_anonymous: true });
      const list = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`));
      expect(list.pagination.total_count).to.equal(2);
      expect(list.data.map((item: { user: unknown }) => item.user === null)).to.have.members([true, false]);
    });

    it('answers 403 to others when signatures are creator_only, and only counts for count_only', async () => {
      const closed = await publishedPetition(api.baseUrl, creatorToken, { signaturePrivacy: 'creator_only' });
      expect((await fetch(`${api.baseUrl}/v1/petitions/${closed.id}/signatures`)).status).to.equal(403);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${closed.id}/signatures`, { headers: bearer(creatorToken) })).status).to.equal(200);
      const counted = await publishedPetition(api.baseUrl, creatorToken, { signaturePrivacy: 'count_only' });
      const [signer] = await createTokenUsers(1);
      await sign(counted.id, signer!.access_token);
      const list = await json(await fetch(`${api.baseUrl}/v1/petitions/${counted.id}/signatures`));
      expect(list.data).to.deep.equal([]);
      expect(list.pagination.total_count).to.equal(1);
    });
  });

  describe('DELETE /v1/petitions/{id}/signatures/me', () => {
    it('removes the caller’s signature and lowers the count', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      await sign(petition.id, signer!.access_token);
      const remove = () => fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/me`, { method: 'DELETE', headers: bearer(signer!.access_token) });
      expect((await remove()).status).to.equal(204);
      expect((await remove()).status).to.equal(404);
      expect((await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`))).data.signature_count).to.equal(0);
    });
  });

  describe('GET /v1/petitions/{id}/signatures/geo', () => {
    it('groups recent signatures by city from display_location, never by IP', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const signers = await createTokenUsers(3);
      for (const signer of signers) await sign(petition.id, signer.access_token, { display_location: 'Lyon, France' });
      const points = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/geo?hours=1`));
      expect(points.data).to.have.length(1);
      expect(points.data[0]).to.include({ city: 'Lyon', country: 'FR', count: 3 });
      expect((await fetch(`${api.baseUrl}/v1/petitions/global/signatures/geo?hours=500`)).status).to.equal(422);
    });

    it('answers the spec’s list envelope {data, pagination, meta}, paged by cursor; a forged cursor is 400 invalid-cursor', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const signers = await createTokenUsers(3);
      for (const [index, signer] of signers.entries())
        await sign(petition.id, signer.access_token, { display_location: index < 2 ? 'Lyon, France' : 'Paris, France' });
      const geo = (query: string) => fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/geo?hours=1&${query}`);
      const first = await json(await geo('limit=1'));
      expect(Object.keys(first).sort()).to.deep.equal(['data', 'meta', 'pagination']);
      expect(first.data.map((point: { city: string }) => point.city)).to.deep.equal(['Lyon']);
      expect(first.pagination).to.include({ has_more: true }).and.have.property('next_cursor').that.is.a('string');
      expect(first.meta).to.have.property('request_id').that.is.a('string');
      const second = await json(await geo(`limit=1&cursor=${first.pagination.next_cursor}`));
      expect(second.data.map((point: { city: string }) => point.city)).to.deep.equal(['Paris']);
      expect(second.pagination).to.deep.equal({ next_cursor: null, has_more: false });
      const forged = await geo(`limit=1&cursor=${cursorWithNul(first.pagination.next_cursor)}`);
      expect([forged.status, (await json(forged)).code]).to.deep.equal([400, 'invalid_cursor']);
    });

    it('counts in the global map only signatures of public, published petitions with public signatures', async () => {
      const lyonGlobally = async () => {
        const points = await json(await fetch(`${api.baseUrl}/v1/petitions/global/signatures/geo?hours=1&limit=100`));
        return (points.data as { city: string; count: number }[]).find((point) => point.city === 'Lyon')?.count ?? 0;
      };
      const [creatorOnly, secret, open] = [
        await publishedPetition(api.baseUrl, creatorToken),
        await publishedPetition(api.baseUrl, creatorToken),
        await publishedPetition(api.baseUrl, creatorToken),
      ];
      const signers = await createTokenUsers(3);
      for (const petition of [creatorOnly, secret, open]) {
        for (const signer of signers) await sign(petition.id, signer.access_token, { display_location: 'Lyon, France' });
      }
      const before = await lyonGlobally();
      const { db } = testEnvironment();
      await db.query(sql.typeAlias('void')`UPDATE petitions SET signature_privacy = 'creator_only' WHERE id = ${creatorOnly.id}`);
      await db.query(sql.typeAlias('void')`UPDATE petitions SET visibility = 'private' WHERE id = ${secret.id}`);
      expect(await lyonGlobally()).to.equal(before - 6);
    });
  });

  describe('GET /v1/petitions/{id}/signatures/export', () => {
    it('streams CSV to the creator and refuses others', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      await sign(petition.id, signer!.access_token, { comment: '=HYPERLINK("x")' });
      const csv = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/export?format=csv`, { headers: bearer(creatorToken) });
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).to.equal('id,signer_name,signer_email,comment,is_anonymous,display_location,city,country,created_at');
      expect(lines).to.have.length(2);
      expect(lines[1]).to.include(`"'=HYPERLINK(""x"")"`);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/export`, { headers: bearer(signer!.access_token) })).status).to.equal(403);
    });
  });

  describe('the per-IP signing limit', () => {
    it('answers 429 past RALLY_SIGN_LIMIT_PER_HOUR', async () => {
      const strict = await startApi({ RALLY_TASK_QUEUE: taskQueue, RALLY_SIGN_LIMIT_PER_HOUR: '2' });
      try {
        const petition = await publishedPetition(strict.baseUrl, creatorToken);
        const signers = await createTokenUsers(3);
        const statuses: number[] = [];
        for (const signer of signers) {
          statuses.push(
            (
              await fetch(`${strict.baseUrl}/v1/petitions/${petition.id}/signatures`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ...bearer(signer.access_token) },
                body: '{}',
              })
            ).status,
          );
        }
        expect(statuses).to.deep.equal([201, 201, 429]);
      } finally {
        await strict.stop();
      }
    });
  });
});
