// The SDK's retries keep their promise against a real Rally: an answer lost to a killed connection is
// retried with the same Idempotency-Key, so the petition or signature exists once; a caller's own key
// makes re-running their code safe; an unkeyed POST (a login) is not repeated after such a loss.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createRallyClient, loginSession, unwrap, type RallyClient } from '../../clients/typescript/src/index.ts';
import { startAnswerDroppingProxy, type AnswerDroppingProxy } from '../support/answer-dropping-proxy.ts';
import { testEnvironment } from '../support/environment.ts';
import { createTestUser, type TestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Sent = { method: string; path: string; idempotencyKey: string | null };

const PETITION = {
  title: 'Light the underpass at night',
  description: 'The underpass by the station is dark after eight; the council should light it for people walking home.',
};

const petitionsOf = (userId: string) =>
  testEnvironment()
    .db.manyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM petitions WHERE creator_id = ${userId}`)
    .catch(() => [] as string[]);

describe('the TypeScript SDK retrying after a killed connection', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let proxy: AnswerDroppingProxy;
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, path: new URL(request.url).pathname, idempotencyKey: request.headers.get('Idempotency-Key') });
    return fetch(request);
  };

  before(async () => {
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('sdk-retries') };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    proxy = await startAnswerDroppingProxy(api.baseUrl);
  });
  after(async () => {
    await proxy?.close();
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  async function logIn(user: TestUser, options: { maxRetries?: number } = {}): Promise<RallyClient> {
    const baseUrl = proxy.baseUrl;
    const session = unwrap(await createRallyClient({ baseUrl }).POST('/v1/auth/login', { body: { email: user.email, password: user.password } }));
    const retry = { initialDelayMs: 50, ...options };
    return createRallyClient({ baseUrl, token: loginSession({ baseUrl, tokens: session.data }), fetch: recording, retry });
  }

  it('retries a POST whose answer was lost with the same Idempotency-Key: one petition, and the caller gets it', async () => {
    const creator = await createTestUser();
    const client = await logIn(creator);
    const before = sent.length;
    proxy.dropAnswers(1);
    const created = unwrap(await client.POST('/v1/petitions', { body: PETITION }));
    expect(proxy.dropped).to.be.at.least(1);
    const attempts = sent.slice(before).filter((request) => request.path === '/v1/petitions');
    expect(attempts).to.have.length(2);
    expect(attempts[1]!.idempotencyKey).to.equal(attempts[0]!.idempotencyKey).and.to.be.a('string');
    expect(await petitionsOf(creator.id)).to.deep.equal([created.data.id]);
  });

  it('signs once when the answer to a signature was lost, and the signer gets the signature, not a 409', async () => {
    const creator = await logIn(await createTestUser());
    const petition = unwrap(await creator.POST('/v1/petitions', { body: PETITION })).data;
    unwrap(await creator.POST('/v1/petitions/{id}/publish', { params: { path: { id: petition.id } } }));
    const signer = await logIn(await createTestUser());
    proxy.dropAnswers(1);
    const signed = await signer.POST('/v1/petitions/{id}/signatures', { params: { path: { id: petition.id } }, body: { comment: 'Light it.' } });
    expect(signed.response.status).to.equal(201);
    expect(signed.response.headers.get('Idempotent-Replayed')).to.equal('true');
    const count = await testEnvironment().db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM signatures WHERE petition_id = ${petition.id}`);
    expect(count).to.equal(1);
  });

  it('gives up after maxRetries, and re-running the call with the caller’s own key returns the first petition', async () => {
    const creator = await createTestUser();
    const client = await logIn(creator, { maxRetries: 2 });
    const key = `create-petition-${crypto.randomUUID()}`;
    const before = sent.length;
    proxy.dropAnswers(3);
    const failure = await client.POST('/v1/petitions', { body: PETITION, headers: { 'Idempotency-Key': key } }).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(TypeError);
    const attempts = sent.slice(before).filter((request) => request.path === '/v1/petitions');
    expect(attempts.map((attempt) => attempt.idempotencyKey)).to.deep.equal([key, key, key]);
    const rerun = unwrap(await client.POST('/v1/petitions', { body: PETITION, headers: { 'Idempotency-Key': key } }));
    expect(await petitionsOf(creator.id)).to.deep.equal([rerun.data.id]);
  });

  it('does not repeat a POST whose route takes no Idempotency-Key (a login) after its answer was lost', async () => {
    const user = await createTestUser();
    const client = createRallyClient({ baseUrl: proxy.baseUrl, fetch: recording, retry: { initialDelayMs: 50 } });
    const before = sent.length;
    proxy.dropAnswers(1);
    const failure = await client.POST('/v1/auth/login', { body: { email: user.email, password: user.password } }).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(TypeError);
    expect(sent.slice(before).filter((request) => request.path === '/v1/auth/login')).to.have.length(1);
  });
});
