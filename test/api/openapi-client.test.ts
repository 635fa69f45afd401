// The OpenAPI document proven usable, not only valid: a bare openapi-fetch client typed by the SDK's
// types (generated from openapi.json by `npm run openapi`, checked fresh by openapi-document.test.ts)
// drives a short flow: log in, create, publish, sign, read the count.
import { expect } from 'chai';
import createClient from 'openapi-fetch';
import type { paths } from '../../clients/typescript/src/generated/openapi.ts';
import { createTestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('a client generated from openapi.json', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;

  before(async () => {
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('openapi-client') };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(() => Promise.all([api.stop(), worker.stop()]));

  it('logs in, creates, publishes, signs and reads the count through openapi-fetch', async () => {
    const client = createClient<paths>({ baseUrl: api.baseUrl });
    const [creator, signer] = await Promise.all([createTestUser(), createTestUser()]);
    const logIn = async (user: { email: string; password: string }) => {
      const { data, response } = await client.POST('/v1/auth/login', { body: { email: user.email, password: user.password } });
      expect(response.status).to.equal(200);
      return { authorization: `Bearer ${data!.data.access_token}` };
    };
    const asCreator = await logIn(creator);
    const created = await client.POST('/v1/petitions', {
      headers: asCreator,
      body: {
        title: 'Plant trees along the river path',
        description: 'The river path has no shade in summer; the council should plant a row of trees along it.',
      },
    });
    expect(created.response.status).to.equal(201);
    const id = created.data!.data.id;
    const published = await client.POST('/v1/petitions/{id}/publish', { headers: asCreator, params: { path: { id } } });
    expect(published.response.status).to.equal(200);
    const signed = await client.POST('/v1/petitions/{id}/signatures', {
      headers: await logIn(signer),
      params: { path: { id } },
      body: { comment: 'Yes, please.' },
    });
    expect(signed.response.status).to.equal(201);
    const read = await client.GET('/v1/petitions/{id}', { params: { path: { id: created.data!.data.slug } } });
    expect(read.response.status).to.equal(200);
    expect(read.data!.data.signature_count).to.equal(1);
  });
});
