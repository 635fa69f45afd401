// The TypeScript SDK (clients/typescript/) against a started Rally: typed calls from login to a signed petition, an Idempotency-Key on every POST, typed
// problems, cursor pagination, a real 429 waited out, and a real webhook delivery verified and parsed by the SDK's verifier. Lost answers, timeouts and token
// refresh: sdk-retries.test.ts and sdk-transport.test.ts.
import { expect } from 'chai';
import { constructEvent, createRallyClient, RallyProblem, unwrap, WebhookVerificationError, type RallyClient } from '../../clients/typescript/src/index.ts';
import { createTestUser, type TestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Sent = { method: string; path: string; idempotencyKey: string | null; status: number };

/** A fetch that remembers each request it sends (the SDK's retries included) and its answer. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    sent.push({ method: request.method, path: new URL(request.url).pathname, idempotencyKey: request.headers.get('Idempotency-Key'), status: response.status });
    return response;
  };
}

const PETITION = {
  title: 'Plant trees along the river path',
  description: 'The river path has no shade in summer; the council should plant a row of trees along it.',
};

describe('the TypeScript SDK (clients/typescript)', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;
  let creator: TestUser;
  const sent: Sent[] = [];

  before(async () => {
    const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('sdk') };
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    creator = await createTestUser();
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  async function logIn(user: TestUser): Promise<RallyClient> {
    const anonymous = createRallyClient({ baseUrl: api.baseUrl, fetch: recordingFetch(sent) });
    const session = unwrap(await anonymous.POST('/v1/auth/login', { body: { email: user.email, password: user.password } }));
    return createRallyClient({ baseUrl: api.baseUrl, token: session.data.access_token, fetch: recordingFetch(sent) });
  }

  async function publishedPetition(client: RallyClient, title = PETITION.title) {
    const created = unwrap(await client.POST('/v1/petitions', { body: { ...PETITION, title } }));
    unwrap(await client.POST('/v1/petitions/{id}/publish', { params: { path: { id: created.data.id } } }));
    return created.data;
  }

  it('goes from login to a signed petition, sending an Idempotency-Key with every POST and none with a GET', async () => {
    const client = await logIn(creator);
    const petition = await publishedPetition(client);
    const signer = await logIn(await createTestUser());
    const signed = unwrap(await signer.POST('/v1/petitions/{id}/signatures', { params: { path: { id: petition.id } }, body: { comment: 'Yes, please.' } }));
    expect(signed.data.petition_id).to.equal(petition.id);
    const read = unwrap(await client.GET('/v1/petitions/{id}', { params: { path: { id: petition.slug } } }));
    expect(read.data.signature_count).to.equal(1);
    const posts = sent.filter((request) => request.method === 'POST');
    expect(posts.length).to.be.at.least(4);
    for (const post of posts) expect(post.idempotencyKey, post.path).to.match(/^[0-9a-f-]{36}$/);
    expect(new Set(posts.map((post) => post.idempotencyKey)).size).to.equal(posts.length);
    for (const get of sent.filter((request) => request.method === 'GET')) expect(get.idempotencyKey).to.equal(null);
  });

  it('throws typed problems: the status, slug, code and field errors of the answer', async () => {
    const client = await logIn(creator);
    const missing = await client.GET('/v1/petitions/{id}', { params: { path: { id: crypto.randomUUID() } } });
    const notFound = (() => {
      try {
        return unwrap(missing);
      } catch (error) {
        return error;
      }
    })();
    expect(notFound).to.be.instanceOf(RallyProblem);
    expect(notFound).to.include({ status: 404, slug: 'not-found', code: 'not_found' });
    const invalid = await client.POST('/v1/petitions', { body: { title: 'Hi', description: PETITION.description } });
    expect(invalid.response.status).to.equal(422);
    expect(invalid.error?.errors?.map((error) => error.field)).to.include('title');
  });

  it('walks a cursor list page after page', async () => {
    const owner = await createTestUser();
    const client = await logIn(owner);
    const titles = ['First petition on the list', 'Second petition on the list', 'Third petition on the list'];
    for (const title of titles) await publishedPetition(client, title);
    const before = sent.length;
    const listed = await client.collect('/v1/petitions', { query: { creatorId: owner.id, limit: 1 } });
    expect(listed.map((petition) => petition.title).sort()).to.deep.equal([...titles].sort());
    expect(sent.slice(before).filter((request) => request.path === '/v1/petitions').length).to.be.at.least(3);
    expect(await client.collect('/v1/petitions', { query: { creatorId: owner.id, limit: 1 }, max: 2 })).to.have.length(2);
  });

  it('verifies and parses a real webhook delivery, and refuses a tampered body or another secret', async () => {
    const client = await logIn(creator);
    const petition = await publishedPetition(client);
    const hook = unwrap(await client.POST('/v1/webhooks', { body: { url: receiver.url('/sdk'), events: ['signature.created'] } }));
    const signer = await logIn(await createTestUser());
    unwrap(await signer.POST('/v1/petitions/{id}/signatures', { params: { path: { id: petition.id } }, body: {} }));
    const [delivery] = await receiver.waitFor('/sdk', 1, 30_000);
    const event = await constructEvent(delivery!.body, delivery!.headers, [hook.data.secret]);
    // The union narrows on type: data is a signature.created payload here, nothing else compiles.
    if (event.type !== 'signature.created') expect.fail(`got ${event.type}`);
    expect(event.data.petition_id).to.equal(petition.id);
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    const headers = delivery!.headers;
    expect(await refused(constructEvent(`${delivery!.body} `, headers, hook.data.secret))).to.be.instanceOf(WebhookVerificationError);
    expect(await refused(constructEvent(delivery!.body, headers, 'another secret'))).to.be.instanceOf(WebhookVerificationError);
    const late = new Date(Date.now() + 10 * 60_000);
    expect(await refused(constructEvent(delivery!.body, headers, hook.data.secret, { now: late }))).to.be.instanceOf(WebhookVerificationError);
  });
});
