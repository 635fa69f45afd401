// RALLY_WORKER_SHUTDOWN_GRACE bounds how long a SIGTERM'd worker waits for running activities: a
// webhook receiver that never answers (the attempt would otherwise wait out a 60 s timeout) does not
// keep the worker alive past the grace, and the delivery is still made later by another worker.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createPetitionRow, emitEvent, eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('worker shutdown (RALLY_WORKER_SHUTDOWN_GRACE)', function () {
  this.timeout(180_000);
  const held: ServerResponse[] = [];
  let answered = 0;
  let hang = true;
  // Holds every request open while `hang` is set; answers 200 afterwards.
  const receiver = createServer((request, response) => {
    request.resume();
    // The endpoint's creation ping is answered at once: the held attempt is the event's.
    if (request.headers['x-rally-event'] === 'ping') response.end('pong');
    else if (hang) held.push(response);
    else {
      answered += 1;
      response.end('ok');
    }
  });
  let api: RunningApi;
  const env = {
    ...SHORT_WINDOWS,
    RALLY_WEBHOOK_TIMEOUT: '60s',
    RALLY_WEBHOOK_RETRY_INITIAL: '1s',
    RALLY_TASK_QUEUE: uniqueTaskQueue('shutdown'),
    RALLY_WORKER_SHUTDOWN_GRACE: '1s',
  };

  before(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    api = await startApi(env);
  });
  after(async () => {
    for (const response of held) response.destroy();
    receiver.closeAllConnections();
    receiver.close();
    await api.stop();
  });

  it('exits after the grace with an attempt still running, and the delivery is made by the next worker', async () => {
    const owner = await createTestUser();
    const token = (await login(api.baseUrl, owner)).accessToken;
    const { port } = receiver.address() as AddressInfo;
    const hook = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['signature.created'] }),
    });
    expect(hook.status, JSON.stringify(await json(hook.clone()))).to.equal(201);
    let worker: RallyProcess = await startWorker(env);
    await emitEvent(await createPetitionRow(owner.id));
    await eventually(async () => (held.length > 0 ? true : undefined), 60_000, 'the attempt reaching the receiver');

    const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
    worker.child.kill('SIGTERM');
    // The attempt would hold the worker for 60 s; the grace (1 s) and the SDK's force margin end it well before.
    const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
    expect(code).to.not.equal('still running');
    expect(held.length).to.equal(1);

    hang = false;
    worker = await startWorker(env);
    try {
      await eventually(async () => (answered > 0 ? true : undefined), 120_000, 'the delivery made by the next worker');
    } finally {
      await worker.stop();
    }
  });
});
