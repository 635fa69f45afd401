import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('petition leaderboard', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;
  let petition: { id: string; slug: string };
  let sharers: { id: string; access_token: string; slug: string }[];
  const taskQueue = uniqueTaskQueue('leaderboard');

  const sign = (petitionId: string, token: string, ref?: string) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(ref ? { ref } : {}),
    });
  const leaderboard = async (ref: string, query = '', token?: string) => {
    const response = await fetch(`${api.baseUrl}/v1/petitions/${ref}/leaderboard${query}`, { headers: token ? bearer(token) : {} });
    return { status: response.status, body: await json(response) };
  };

  // Shares: first sharer 3, second 1, third 1 (the second reached it first), plus one signature without a ref.
  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
    petition = await publishedPetition(api.baseUrl, creatorToken);
    const users = await createTokenUsers(3);
    sharers = await Promise.all(
      users.map(async (user) => ({
        ...user,
        slug: (await json(await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(user.access_token) }))).data.slug as string,
      })),
    );
    const signers = await createTokenUsers(6);
    const refs = [sharers[0]!.slug, sharers[0]!.slug, sharers[1]!.slug, sharers[0]!.slug, sharers[2]!.slug, undefined];
    for (const [index, signer] of signers.entries()) expect((await sign(petition.id, signer.access_token, refs[index])).status).to.equal(201);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  it('ranks sharers by shares, then by who reached their count first, with the total', async () => {
    const { status, body } = await leaderboard(petition.slug);
    expect(status).to.equal(200);
    expect(body.data.topSharers.map((row: { userId: string; shareCount: number }) => [row.userId, row.shareCount])).to.deep.equal([
      [sharers[0]!.id, 3],
      [sharers[1]!.id, 1],
      [sharers[2]!.id, 1],
    ]);
    expect(body.data.topSharers[0]).to.include({ slug: sharers[0]!.slug, avatarUrl: null }).and.have.property('displayName').that.is.a('string');
    expect(body.data).to.include({ totalShares: 5, currentUserRank: null, currentUserShareCount: null });
  });

  it('gives a signed-in caller their own rank even below the limit, and 0 shares when they have none', async () => {
    const { body } = await leaderboard(petition.id, '?limit=1', sharers[2]!.access_token);
    expect(body.data.topSharers).to.have.length(1);
    expect(body.data).to.include({ totalShares: 5, currentUserRank: 3, currentUserShareCount: 1 });
    const none = await leaderboard(petition.id, '', creatorToken);
    expect(none.body.data).to.include({ currentUserRank: null, currentUserShareCount: 0 });
  });

  it("answers 422 for a limit outside 1..100, 404 for an unknown petition or someone else's draft, 403 for their private one", async () => {
    for (const limit of ['0', '101', 'ten']) {
      const { status, body } = await leaderboard(petition.id, `?limit=${limit}`);
      expect(status).to.equal(422);
      expect(body.errors[0].field).to.equal('limit');
    }
    expect((await leaderboard('no-such-petition')).status).to.equal(404);
    const draft = await createPetition(api.baseUrl, creatorToken);
    expect((await leaderboard(draft.id)).status).to.equal(404);
    const own = await leaderboard(draft.id, '', creatorToken);
    expect(own.body.data).to.deep.equal({ topSharers: [], totalShares: 0, currentUserRank: null, currentUserShareCount: 0 });
    const secret = await publishedPetition(api.baseUrl, creatorToken, { visibility: 'private' });
    expect((await leaderboard(secret.id, '', sharers[0]!.access_token)).status).to.equal(403);
  });
});
