// Signatures are written in batches (group commit). This API closes a batch at 50 requests (5 s at most), so the 50 requests sent together share one batch
// however slowly a loaded machine delivers them, and a person's second request lands beside the first. Positions are distinct within a batch; batches
// written at the same time may overlap (core/signatures/milestone-catch-up.ts).
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('POST /v1/petitions/{id}/signatures under group commit', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;

  before(async () => {
    const env = {
      RALLY_TASK_QUEUE: uniqueTaskQueue('group-commit'),
      RALLY_SIGN_LIMIT_PER_HOUR: '1000',
      RALLY_SIGN_BATCH_WINDOW: '5s',
      RALLY_SIGN_BATCH_MAX: '50',
      RALLY_TRUST_PROXY: '1',
    };
    // The worker runs the petition workflow that publishing goes through.
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  // From an address of its own: the per-address signing budget is shared by every API on the test database.
  const sign = (petitionId: string, token: string) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.61', ...bearer(token) },
      body: '{}',
    });

  it('answers one 201 per person among 50 simultaneous requests with duplicates, counts every row once and reports each milestone once', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    const signers = await createTokenUsers(40);
    // Ten people send their request twice at the same moment.
    const tokens = [...signers.map((signer) => signer.access_token), ...signers.slice(0, 10).map((signer) => signer.access_token)];
    const responses = await Promise.all(tokens.map((token) => sign(petition.id, token)));
    const bodies = await Promise.all(responses.map((response) => json(response)));

    const created = bodies.filter((_, index) => responses[index]!.status === 201).map((body) => body.data);
    expect(created.map((signature: { user_id: string }) => signature.user_id)).to.have.members(signers.map((signer) => signer.id));
    const refused = bodies.filter((_, index) => responses[index]!.status === 409);
    expect(refused).to.have.length(10);
    expect(refused.map((body) => body.code)).to.deep.equal(Array(10).fill('already_signed'));
    // Each signature has its own place in the count.
    expect(new Set(created.map((signature: { signature_count: number }) => signature.signature_count)).size).to.equal(40);
    expect(Math.max(...created.map((signature: { signature_count: number }) => signature.signature_count))).to.equal(40);

    const { db } = testEnvironment();
    const rows = await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM signatures WHERE petition_id = ${petition.id}`);
    const counted = await db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT COALESCE(sum(count), 0)::int AS n FROM signature_counters WHERE petition_id = ${petition.id}`,
    );
    expect([rows, counted]).to.deep.equal([40, 40]);
    expect((await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`))).data.signature_count).to.equal(40);

    // Milestones 10 and 25: each claimed once, by the signature that reached it, which alone says so.
    const claims = await db.any(sql.type(z.object({ threshold: z.number(), signature_id: z.string() }))`
      SELECT threshold, signature_id FROM petition_milestones WHERE petition_id = ${petition.id} ORDER BY threshold`);
    expect(claims.map((claim) => claim.threshold)).to.deep.equal([10, 25]);
    const flagged = created.filter((signature: { milestone_reached: boolean }) => signature.milestone_reached);
    expect(flagged.map((signature: { id: string }) => signature.id)).to.have.members(claims.map((claim) => claim.signature_id));
    for (const claim of claims) {
      expect(created.find((signature: { id: string }) => signature.id === claim.signature_id).signature_count).to.equal(claim.threshold);
    }
    const events = await db.anyFirst(sql.type(z.object({ milestone: z.number() }))`
      SELECT (data->>'milestone')::int AS milestone FROM events WHERE petition_id = ${petition.id} AND type = 'signature.milestone' ORDER BY 1`);
    expect(events).to.deep.equal([10, 25]);
    const announced = await db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events WHERE petition_id = ${petition.id} AND type = 'signature.created'`,
    );
    expect(announced).to.equal(40);
  });

  it('answers each request of a mixed batch with its own outcome', async () => {
    const open = await publishedPetition(api.baseUrl, creatorToken);
    const secret = await publishedPetition(api.baseUrl, creatorToken, { visibility: 'private' });
    const [first, second] = await createTokenUsers(2);
    const responses = await Promise.all([
      sign(open.id, first!.access_token),
      sign(secret.id, first!.access_token),
      sign(open.id, second!.access_token),
      sign('00000000-0000-4000-8000-000000000000', second!.access_token),
    ]);
    expect(responses.map((response) => response.status)).to.deep.equal([201, 403, 201, 404]);
    const counts = await Promise.all(responses.slice(0, 3).map((response) => json(response)));
    expect([counts[0].data.signature_count, counts[2].data.signature_count]).to.have.members([1, 2]);
    expect(counts[1].code).to.equal('access_code_required');
  });
});
