// The `webhooks` section of openapi.json holds what Rally really sends: an endpoint subscribed to the petition, signature and update events receives the
// deliveries a petition's life causes, and each body is valid against the payload schema the document gives its event, each header it lists as required is
// there; and each event is listed under the name an endpoint subscribes with.
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { json } from '../support/http.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

type WebhookEntry = {
  post: {
    'x-rally-subscribable'?: boolean;
    parameters: { name: string; required: boolean }[];
    requestBody: { content: { 'application/json': { schema: object } } };
  };
};
type Document = { webhooks: Record<string, WebhookEntry>; components: { schemas: Record<string, unknown> } };

/** The schema with each `#/components/schemas/X` reference replaced by X itself. */
function inline(value: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, schemas));
  if (typeof value !== 'object' || value === null) return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') return inline(schemas[ref.replace('#/components/schemas/', '')], schemas);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item, schemas)]));
}

const EVENTS = ['petition.created', 'petition.updated', 'petition.published', 'signature.created', 'signature.removed', 'update.created', 'petition.closed'];

describe('the webhooks of openapi.json', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;

  before(async () => {
    const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('openapi-webhooks') };
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  it('describe the body and headers of each delivery a petition causes', async () => {
    const document = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8')) as Document;
    const [creator, signer] = await Promise.all([createTestUser(), createTestUser()]);
    const asCreator = { 'content-type': 'application/json', ...bearer((await login(api.baseUrl, creator)).accessToken) };
    const asSigner = { 'content-type': 'application/json', ...bearer((await login(api.baseUrl, signer)).accessToken) };
    const call = async (method: string, path: string, headers: Record<string, string>, body?: object) => {
      const response = await fetch(`${api.baseUrl}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
      expect(response.status, `${method} ${path}`).to.be.below(300);
      return response.status === 204 ? undefined : await json(response);
    };
    await call('POST', '/v1/webhooks', asCreator, { url: receiver.url('/all'), events: EVENTS });
    const title = 'Plant trees along the river path';
    const description = 'The river path has no shade in summer; the council should plant a row of trees along it.';
    const petition = (await call('POST', '/v1/petitions', asCreator, { title, description })).data as { id: string };
    await call('PATCH', `/v1/petitions/${petition.id}`, asCreator, { title: `${title}, please` });
    await call('POST', `/v1/petitions/${petition.id}/publish`, asCreator);
    await call('POST', `/v1/petitions/${petition.id}/signatures`, asSigner, {});
    await call('DELETE', `/v1/petitions/${petition.id}/signatures/me`, asSigner);
    await call('POST', `/v1/petitions/${petition.id}/updates`, asCreator, { title: 'The council listened', body: 'It will discuss the trees next month.' });
    await call('POST', `/v1/petitions/${petition.id}/close`, asCreator);

    const deliveries = await receiver.waitFor('/all', EVENTS.length, 60_000);
    expect(deliveries.map((delivery) => delivery.headers['x-rally-event']).sort()).to.deep.equal([...EVENTS].sort());
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const delivery of deliveries) {
      const type = String(delivery.headers['x-rally-event']);
      const entry = document.webhooks[type];
      expect(entry, `webhooks.${type}`).to.not.equal(undefined);
      const validate = ajv.compile(inline(entry!.post.requestBody.content['application/json'].schema, document.components.schemas) as object);
      expect(validate(JSON.parse(delivery.body)), `${type}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      for (const header of entry!.post.parameters.filter((parameter) => parameter.required)) {
        expect(delivery.headers[header.name.toLowerCase()], `${type} ${header.name}`).to.be.a('string');
      }
    }
  });

  it('are named as POST /v1/webhooks takes them: each name subscribes (201), but the ping marked x-rally-subscribable: false (422)', async () => {
    const document = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8')) as Document;
    const owner = { 'content-type': 'application/json', ...bearer((await login(api.baseUrl, await createTestUser())).accessToken) };
    const names = Object.keys(document.webhooks);
    expect(names).to.include('report.brigading_suspected');
    const unsubscribable = names.filter((name) => document.webhooks[name]!.post['x-rally-subscribable'] === false);
    expect(unsubscribable).to.deep.equal(['ping']);
    for (const name of names) {
      const response = await fetch(`${api.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ url: receiver.url('/names'), events: [name] }),
      });
      const expected = unsubscribable.includes(name) ? 422 : 201;
      expect(response.status, `${name}: ${await response.clone().text()}`).to.equal(expected);
    }
  });

  it('describe the ping every new endpoint receives', async () => {
    const document = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8')) as Document;
    const [ping] = await receiver.waitFor('/all', 1, 30_000, 'pings');
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(inline(document.webhooks.ping!.post.requestBody.content['application/json'].schema, document.components.schemas) as object);
    expect(validate(JSON.parse(ping!.body)), JSON.stringify(validate.errors)).to.equal(true);
  });
});
