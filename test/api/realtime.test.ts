import { expect } from 'chai';
import WebSocket from 'ws';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Message = { type: string; petition_id?: string; signature_count?: number; message?: string };

/** A WebSocket client that collects what it receives and can wait for a message. */
async function connect(baseUrl: string) {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/realtime`);
  const received: Message[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Message));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const waitFor = async (predicate: (message: Message) => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = received.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(received)}`);
  };
  return { socket, received, waitFor, send: (message: unknown) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)) };
}

describe('GET /v1/realtime (WebSocket)', function () {
  this.timeout(60_000);
  let first: RunningApi;
  let second: RunningApi;
  let worker: RallyProcess;
  let token: string;
  const taskQueue = uniqueTaskQueue('realtime');

  before(async () => {
    [first, second, worker] = await Promise.all([
      startApi({ RALLY_TASK_QUEUE: taskQueue }),
      startApi({ RALLY_TASK_QUEUE: taskQueue }),
      startWorker({ RALLY_TASK_QUEUE: taskQueue }),
    ]);
    token = (await login(first.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([first.stop(), second.stop(), worker.stop()]);
  });

  it('streams each signature with the new count, across API processes', async () => {
    const petition = await publishedPetition(first.baseUrl, token);
    const client = await connect(second.baseUrl);
    client.send({ type: 'subscribe', petition_id: petition.id });
    await client.waitFor((message) => message.type === 'subscribed');
    const signers = await createTokenUsers(2);
    for (const signer of signers) {
      await fetch(`${first.baseUrl}/v1/petitions/${petition.id}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(signer.access_token) },
        body: '{}',
      });
    }
    await client.waitFor((message) => message.type === 'signature.created' && message.signature_count === 2);
    await fetch(`${first.baseUrl}/v1/petitions/${petition.id}/signatures/me`, { method: 'DELETE', headers: bearer(signers[0]!.access_token) });
    const removed = await client.waitFor((message) => message.type === 'signature.removed');
    expect(removed).to.include({ petition_id: petition.id, signature_count: 1 });
    client.socket.close();
  });

  it('answers malformed and unknown messages with an error and keeps the connection open', async () => {
    const client = await connect(first.baseUrl);
    client.send('not json');
    await client.waitFor((message) => message.type === 'error' && /JSON/.test(message.message ?? ''));
    client.send({ type: 'dance' });
    await client.waitFor((message) => message.type === 'error' && /Unknown message type/.test(message.message ?? ''));
    client.send({ type: 'subscribe', petition_id: 'nope' });
    await client.waitFor((message) => message.type === 'error' && /UUID/.test(message.message ?? ''));
    expect(client.socket.readyState).to.equal(WebSocket.OPEN);
    client.socket.close();
  });
});

/** A connection as soon as the server frees a slot of this address: tried every 100 ms for 5 s. */
async function connectOnceFree(baseUrl: string): Promise<Awaited<ReturnType<typeof connect>> | undefined> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const opened = await connect(baseUrl).catch(() => undefined);
    if (opened) return opened;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

describe('GET /v1/realtime limits', function () {
  this.timeout(120_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi({ RALLY_WS_MAX_PER_ADDRESS: '2' });
  });
  after(() => api.stop());

  it('refuses a connection past RALLY_WS_MAX_PER_ADDRESS with 429, and takes one again once another closes', async () => {
    const [a, b] = [await connect(api.baseUrl), await connect(api.baseUrl)];
    const refused = await connect(api.baseUrl).then(
      () => 'opened',
      (error: Error) => error.message,
    );
    expect(refused).to.include('429');
    a.socket.close();
    await new Promise((resolve) => a.socket.once('close', resolve));
    const again = await connectOnceFree(api.baseUrl);
    expect(again).to.not.equal(undefined);
    // Closed and seen closed by the server too, so the next test starts with the address's slots free.
    await Promise.all(
      [again!, b].map(
        (open) =>
          new Promise((resolve) => {
            open.socket.once('close', resolve);
            open.socket.close();
          }),
      ),
    );
  });

  it('closes with 1008 and a reason when a client sends more than 20 messages a second', async () => {
    // The server may release the previous test's slots a moment after the clients saw them close.
    const client = await connectOnceFree(api.baseUrl);
    if (!client) throw new Error('no connection was accepted within 5 s');
    const closed = new Promise<[number, string]>((resolve) => client.socket.once('close', (code, reason) => resolve([code, String(reason)])));
    for (let index = 0; index < 40; index += 1) client.send({ type: 'ping' });
    const [code, reason] = await closed;
    expect(code).to.equal(1008);
    expect(reason).to.match(/messages per second/);
  });
});
