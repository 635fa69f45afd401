// The TypeScript SDK (clients/typescript/) against a started Rally: typed calls from login to a signed
// petition, an Idempotency-Key on every POST, typed problems, cursor pagination, retries after
// Retry-After (a real 429 from Rally's limiter; a 503 from a stand-in server), and a real webhook
// delivery verified and parsed by the SDK's verifier.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  constructWebhookEvent,
  createRallyClient,
  RallyProblem,
  unwrap,
  verifyWebhookSignature,
  type RallyClient,
} from '../../clients/typescript/src/index.ts';
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
    const event = await constructWebhookEvent({ secret: hook.data.secret, body: delivery!.body, headers: delivery!.headers });
    expect(event.type).to.equal('signature.created');
    if (event.type === 'signature.created') expect(event.data.petition_id).to.equal(petition.id);
    const headers = delivery!.headers;
    expect(await verifyWebhookSignature({ secret: hook.data.secret, body: `${delivery!.body} `, headers })).to.equal(false);
    expect(await verifyWebhookSignature({ secret: 'another secret', body: delivery!.body, headers })).to.equal(false);
    const v1Only = { ...headers, 'x-rally-signature-v2': undefined };
    expect(await verifyWebhookSignature({ secret: hook.data.secret, body: delivery!.body, headers: v1Only })).to.equal(true);
    const late = new Date(Date.now() + 10 * 60_000);
    expect(await verifyWebhookSignature({ secret: hook.data.secret, body: delivery!.body, headers, now: late })).to.equal(false);
  });
});

describe('the TypeScript SDK retrying', function () {
  this.timeout(120_000);

  it("waits out Rally's 429 for Retry-After and retries, a POST with the same Idempotency-Key", async () => {
    const limited = await startApi({ RALLY_RATE_LIMIT_RPS: '1', RALLY_RATE_LIMIT_BURST: '2' });
    try {
      const sent: Sent[] = [];
      const client = createRallyClient({ baseUrl: limited.baseUrl, fetch: recordingFetch(sent), retry: { maxRetries: 5 } });
      const user = await createTestUser();
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() => client.POST('/v1/auth/refresh', { body: { refresh_token: 'not-a-refresh-token' } }).then(({ response }) => response.status)),
      );
      expect(answers).to.not.include(429);
      const limitedOnes = sent.filter((request) => request.status === 429);
      expect(limitedOnes.length, 'the limiter answered 429 at least once').to.be.at.least(1);
      const session = await client.POST('/v1/auth/login', { body: { email: user.email, password: user.password } });
      expect(session.response.status).to.equal(200);
      for (const refused of limitedOnes) {
        const retried = sent.filter((request) => request.idempotencyKey === refused.idempotencyKey);
        expect(retried.at(-1)!.status, 'the same key was sent again until it got through').to.not.equal(429);
      }
    } finally {
      await limited.stop();
    }
  });

  it('retries a 503 after its Retry-After and gives up after maxRetries', async () => {
    let calls = 0;
    const server: Server = createServer((_request, response) => {
      calls++;
      if (calls % 2 === 1) response.writeHead(503, { 'Retry-After': '1', 'Content-Type': 'application/problem+json' }).end('{}');
      else response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{"status":"ok"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = Date.now();
      const answer = await createRallyClient({ baseUrl }).GET('/health');
      expect(answer.response.status).to.equal(200);
      expect(Date.now() - started).to.be.at.least(900);
      expect(calls).to.equal(2);
      const unretried = await createRallyClient({ baseUrl, retry: { maxRetries: 0 } }).GET('/health');
      expect(unretried.response.status).to.equal(503);
    } finally {
      server.close();
    }
  });
});
