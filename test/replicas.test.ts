// Replicas (issue 17): two API processes and two workers against one Temporal server and one PostgreSQL, as in a deployment. Requests are served by both APIs
// over shared state, and both workers' outbox dispatchers run at once safely: every event becomes exactly one delivery, sent by exactly one of them, and the
// receiver sees each delivery id exactly once.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import { testEnvironment } from './support/environment.ts';
import { eventually } from './support/events.ts';
import { json } from './support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from './support/identity.ts';
import { createPetition, transition } from './support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from './support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { uniqueTaskQueue } from './support/workflows.ts';

const SIGNERS = 60;
const WAVE = 5;

describe('2 API and 2 worker replicas on one Temporal server and one PostgreSQL', function () {
  this.timeout(300_000);
  let apis: RunningApi[];
  let workers: RallyProcess[];
  let receiver: WebhookReceiver;
  const workerLogs = ['', ''];
  const taskQueue = uniqueTaskQueue('replicas');

  before(async () => {
    receiver = await startWebhookReceiver();
    const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_TIMEOUT: '10s', RALLY_TASK_QUEUE: taskQueue };
    // At debug, each worker logs every attempt it sends (`webhook attempt`, with its delivery id).
    const logged = (index: number) => ({ onOutput: (chunk: string) => (workerLogs[index] += chunk) });
    const started = await Promise.all([
      startApi(env),
      startApi(env),
      startWorker({ ...env, LOG_LEVEL: 'debug' }, logged(0)),
      startWorker({ ...env, LOG_LEVEL: 'debug' }, logged(1)),
    ]);
    apis = started.slice(0, 2) as RunningApi[];
    workers = started.slice(2) as RallyProcess[];
  });
  after(async () => {
    await Promise.all([...(apis ?? []), ...(workers ?? [])].map((process) => process.stop()));
    await receiver?.close();
  });

  // Delivery is at least once: an attempt that outlives RALLY_WEBHOOK_TIMEOUT counts as failed and is sent again,
  // which on a loaded two-core machine the tests' 1 s timeout allows; here it is the default 10 s, so a second
  // request for a delivery can only come from two dispatchers sending the same delivery.
  it('serves requests on both APIs, sends each delivery from exactly one of the two dispatchers and delivers each event exactly once', async () => {
    const [a, b] = apis as [RunningApi, RunningApi];
    const owner = (await login(a.baseUrl, await createTestUser())).accessToken;
    // Made on one API, published (through the petition's workflow on some worker) on the other.
    const petition = await createPetition(a.baseUrl, owner);
    expect((await transition(b.baseUrl, owner, petition.id, 'publish')).status).to.equal(200);
    const hook = await fetch(`${b.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(owner) },
      body: JSON.stringify({ url: receiver.url('/replicas'), events: ['signature.created'] }),
    });
    expect(hook.status).to.equal(201);
    const endpointId = (await json(hook)).data.id as string;

    // Signers alternate between the two APIs, in waves, each wave delivered before the next: every
    // wave is its own delivery work for whichever worker polls first.
    const signers = await createTokenUsers(SIGNERS);
    for (let wave = 0; wave < SIGNERS / WAVE; wave += 1) {
      const answers = await Promise.all(
        signers.slice(wave * WAVE, (wave + 1) * WAVE).map((signer, index) =>
          fetch(`${apis[index % 2]!.baseUrl}/v1/petitions/${petition.id}/signatures`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(signer.access_token) },
            body: '{}',
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).to.deep.equal(answers.map(() => 201));
      await receiver.waitFor('/replicas', (wave + 1) * WAVE, 60_000);
    }
    for (const api of apis) {
      expect((await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`))).data.signature_count).to.equal(SIGNERS);
    }

    // Every delivery done, then the receiver's view: each delivery id once, one delivery per event.
    const { db } = testEnvironment();
    const deliveries = await eventually(
      async () => {
        const rows = await db.any(sql.type(z.object({ id: z.string(), status: z.string(), attempt_count: z.number() }))`
        SELECT id, status, attempt_count FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND cause <> 'ping'`);
        return rows.length === SIGNERS && rows.every((row) => row.status === 'delivered') ? rows : undefined;
      },
      120_000,
      'every delivery delivered',
    );
    const received = receiver.received('/replicas');
    const receivedIds = received.map((request) => String(request.headers['x-rally-delivery-id']));
    expect(
      deliveries.filter((delivery) => delivery.attempt_count !== 1),
      'deliveries that needed a second attempt',
    ).to.deep.equal([]);
    expect(receivedIds).to.have.length(SIGNERS);
    expect(new Set(receivedIds).size).to.equal(SIGNERS);
    expect([...receivedIds].sort()).to.deep.equal(deliveries.map((delivery) => delivery.id).sort());
    expect(new Set(received.map((request) => JSON.parse(request.body).id as string)).size).to.equal(SIGNERS);

    // Which worker sent each delivery: its own log line. Both dispatchers claim at once; each delivery went out from one of them only.
    const sentBy = workerLogs.map(
      (text) =>
        new Set(
          text
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as { message?: string; delivery_id?: string })
            .filter((line) => line.message === 'webhook attempt')
            .map((line) => line.delivery_id!),
        ),
    );
    const [first, second] = sentBy as [Set<string>, Set<string>];
    expect(
      [...first].filter((id) => second.has(id)),
      'deliveries sent by both workers',
    ).to.deep.equal([]);
    expect([...first, ...second].filter((id) => receivedIds.includes(id)).sort()).to.deep.equal([...receivedIds].sort());
  });
});
