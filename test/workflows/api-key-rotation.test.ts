// Rotation end to end: a real API and a real worker process, the grace window shortened to 3 s,
// and the worker killed and restarted inside the window.
import { expect } from 'chai';
import { apiKeyRotationWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

const GRACE = { RALLY_KEY_GRACE_PERIOD: '3s' };

describe('POST /v1/api-keys/{id}/rotate', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  const taskQueue = uniqueTaskQueue('rotation');

  before(async () => {
    api = await startApi({ ...GRACE, RALLY_TASK_QUEUE: taskQueue });
    worker = await startWorker({ ...GRACE, RALLY_TASK_QUEUE: taskQueue });
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await api.stop();
    await worker.stop();
  });

  const rotate = (id: string) => fetch(`${api.baseUrl}/v1/api-keys/${id}/rotate`, { method: 'POST', headers: bearer(token) });
  const me = (key: string) => fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(key) });

  it('keeps the old key valid through the grace window, across a worker restart, then revokes it', async () => {
    const old = await createApiKey(api.baseUrl, token, 'full');
    const response = await rotate(old.id);
    expect(response.status).to.equal(200);
    const { data } = await json(response);
    expect(data.new_key.key)
      .to.match(/^rally_live_/)
      .and.not.equal(old.key);
    expect(data.old_key.status).to.equal('rotating');

    expect((await me(old.key)).status).to.equal(200);
    expect((await me(data.new_key.key)).status).to.equal(200);

    await worker.stop('SIGKILL');
    worker = await startWorker({ ...GRACE, RALLY_TASK_QUEUE: taskQueue });

    const handle = testEnvironment().temporal.client.workflow.getHandle(apiKeyRotationWorkflowId(old.id));
    const outcome = await handle.result();
    expect(outcome).to.include({ keyId: old.id, revoked: true });
    await captureHistory('api-key-rotation-completed', handle);

    expect((await me(old.key)).status).to.equal(401);
    expect((await me(data.new_key.key)).status).to.equal(200);
    const listed = await json(await fetch(`${api.baseUrl}/v1/api-keys/${old.id}`, { headers: bearer(token) }));
    expect(listed.data.status).to.equal('revoked');
  });

  it('is findable in the Temporal UI by the key id', async () => {
    const old = await createApiKey(api.baseUrl, token, 'full');
    expect((await rotate(old.id)).status).to.equal(200);
    const found: string[] = [];
    const deadline = Date.now() + 10_000;
    while (found.length === 0 && Date.now() < deadline) {
      for await (const execution of testEnvironment().temporal.client.workflow.list({ query: `RallyApiKeyId = '${old.id}'` })) found.push(execution.workflowId);
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found).to.deep.equal([apiKeyRotationWorkflowId(old.id)]);
  });

  it('answers 409 when the key is already rotating', async () => {
    const old = await createApiKey(api.baseUrl, token, 'full');
    expect((await rotate(old.id)).status).to.equal(200);
    const again = await rotate(old.id);
    expect(again.status).to.equal(409);
    expect((await json(again)).code).to.equal('api_key_already_rotated');
  });

  it('cancels the grace window when the old key is deleted first', async () => {
    const old = await createApiKey(api.baseUrl, token, 'full');
    expect((await rotate(old.id)).status).to.equal(200);
    expect((await fetch(`${api.baseUrl}/v1/api-keys/${old.id}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
    expect((await me(old.key)).status).to.equal(401);
    const handle = testEnvironment().temporal.client.workflow.getHandle(apiKeyRotationWorkflowId(old.id));
    const outcome = await handle.result().then(
      () => 'completed',
      (error: Error) => error.name,
    );
    expect(outcome).to.equal('WorkflowFailedError');
    expect((await handle.describe()).status.name).to.equal('CANCELLED');
    await captureHistory('api-key-rotation-cancelled', handle);
  });

  it('answers 403 to a read_write key, which may not rotate', async () => {
    const old = await createApiKey(api.baseUrl, token, 'full');
    const writer = await createApiKey(api.baseUrl, token, 'read_write');
    const response = await fetch(`${api.baseUrl}/v1/api-keys/${old.id}/rotate`, { method: 'POST', headers: bearer(writer.key) });
    expect(response.status).to.equal(403);
  });
});
