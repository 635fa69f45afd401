// signature.anonymized (issue 46): when account deletion strips a person's signatures, each petition's endpoints that list the event get one delivery naming
// the petition, the signature ids and their count, and nothing personal; an endpoint subscribed to every default event (what "all events" means, as `rally
// webhooks listen` subscribes) never gets it, nor anything about the person themselves.
import { expect } from 'chai';
import { DEFAULT_EVENT_TYPES } from '../../core/vocabulary.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, establishUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('signature.anonymized webhooks (opt-in)', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;

  before(async () => {
    const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('signature-anonymized') };
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  const call = async (method: string, path: string, token: string, body?: object) => {
    const response = await fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(response.status, `${method} ${path}`).to.be.below(300);
    return json(response);
  };

  it('tells the endpoints that list it which signatures of each petition lost their signer, and only those', async () => {
    const [creator, signer] = await Promise.all([createTestUser(), createTestUser({ name: 'Dorothy Vaughan' })]);
    await establishUsers([signer.id]);
    const creatorToken = (await login(api.baseUrl, creator)).accessToken;
    const signerToken = (await login(api.baseUrl, signer)).accessToken;
    await call('POST', '/v1/webhooks', creatorToken, { url: receiver.url('/opted-in'), events: ['signature.anonymized'] });
    await call('POST', '/v1/webhooks', creatorToken, { url: receiver.url('/defaults'), events: DEFAULT_EVENT_TYPES.slice(0, 20) });
    const petitions = [
      await publishedPetition(api.baseUrl, creatorToken),
      await publishedPetition(api.baseUrl, creatorToken, { title: 'Light the bridge at night' }),
    ];
    const signatures = new Map<string, string>();
    for (const petition of petitions) {
      const signed = await call('POST', `/v1/petitions/${petition.id}/signatures`, signerToken, { comment: 'Yes, please' });
      signatures.set(petition.id, signed.data.id);
    }
    const beforeDeletion = 6; // each petition's petition.created, petition.published and signature.created
    await receiver.waitFor('/defaults', beforeDeletion, 60_000);

    await call('DELETE', '/v1/users/me', signerToken);
    const deliveries = await receiver.waitFor('/opted-in', 2, 90_000);
    const bodies = deliveries.map((delivery) => JSON.parse(delivery.body));
    expect(deliveries.map((delivery) => delivery.headers['x-rally-event'])).to.deep.equal(['signature.anonymized', 'signature.anonymized']);
    expect(bodies.map((body) => body.data).sort((a, b) => a.petition_id.localeCompare(b.petition_id))).to.deep.equal(
      [...signatures.entries()]
        .map(([petitionId, signatureId]) => ({ petition_id: petitionId, signature_ids: [signatureId], count: 1, reason: 'account_deleted' }))
        .sort((a, b) => a.petition_id.localeCompare(b.petition_id)),
    );
    for (const delivery of deliveries) {
      for (const personal of [signer.id, signer.email, 'Dorothy', 'Yes, please']) expect(delivery.body, personal).to.not.include(personal);
    }

    // The default subscription saw the signatures made, and nothing of their anonymisation or the person's deletion.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const seen = receiver.received('/defaults').map((delivery) => delivery.headers['x-rally-event']);
    expect(seen).to.have.length(beforeDeletion);
    expect(seen.filter((type) => type === 'signature.created')).to.have.length(2);
  });
});
