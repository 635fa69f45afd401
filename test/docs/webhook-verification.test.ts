// The webhook receivers of docs/guides/receiving-webhooks.md (TypeScript, Python and Go, each a complete program in a block tagged `receiver`) are run as
// written against real signed deliveries: each gets an endpoint of its own, a real signature on a published petition is delivered to all three by the worker,
// and each must answer it 2xx. Then each must refuse what a receiver must refuse: an unsigned request, a wrong secret, a signature more than 5 minutes old.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { parse, readDocument } from '../support/markdown.ts';
import { publishedPetition } from '../support/petitions.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const GUIDE = 'docs/guides/receiving-webhooks.md';
const GO = existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
const LANGUAGES = {
  ts: { file: 'receiver.mts', command: (file: string) => [process.execPath, file] },
  python: { file: 'receiver.py', command: (file: string) => ['python3', file] },
  go: { file: 'receiver.go', command: (file: string) => [GO, 'run', file] },
} as const;
type Language = keyof typeof LANGUAGES;

type Receiver = { language: Language; port: number; secret: string; webhookId: string; child: ChildProcess; output: () => string };

/** An X-Rally-Signature-V2 value made here, independently of Rally's signing code. */
const signatureV2 = (secrets: string[], body: string, seconds: number) =>
  [`t=${seconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${seconds}.${body}`).digest('hex')}`)].join(',');

describe(`webhook receivers of ${GUIDE}`, function () {
  this.timeout(300_000);
  // Each endpoint's creation ping fails until its receiver listens (`go run` compiles for a while on a busy machine): with the
  // short deactivation window, the ping's used-up retries would switch the endpoint off before the signature's delivery.
  const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_DEACTIVATE_AFTER: '1h', RALLY_TASK_QUEUE: uniqueTaskQueue('docs-webhooks') };
  let api: RunningApi;
  let worker: RallyProcess;
  let ownerToken: string;
  let folder: string;
  const receivers: Receiver[] = [];

  const post = (port: number, body: string, headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${port}/rally`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.status);

  async function startReceiver(language: Language, code: string): Promise<Receiver> {
    const port = await freePort();
    const created = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(ownerToken) },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/rally`, events: ['signature.created'] }),
    });
    const { data } = await json(created);
    const file = path.join(folder, LANGUAGES[language].file);
    await writeFile(file, code);
    const [command, ...args] = LANGUAGES[language].command(file);
    const child = spawn(command!, args, {
      cwd: folder,
      env: { ...process.env, PORT: String(port), RALLY_WEBHOOK_SECRET: data.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Listening once an unsigned request is answered (`go run` compiles first).
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the ${language} receiver exited:\n${output}`);
        return post(port, '{}', {}).catch(() => undefined);
      },
      180_000,
      `the ${language} receiver listening`,
    );
    return { language, port, secret: data.secret, webhookId: data.id, child, output: () => output };
  }

  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'rally-docs-receivers-'));
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ownerToken = (await login(api.baseUrl, await createTestUser())).accessToken;
    const blocks = parse(await readDocument(GUIDE)).blocks.filter(({ info }) => /\breceiver\b/.test(info));
    expect(blocks.map(({ info }) => info.split(/\s+/)[0])).to.deep.equal(['ts', 'python', 'go']);
    for (const { info, code } of blocks) receivers.push(await startReceiver(info.split(/\s+/)[0] as Language, code));
  });
  after(async () => {
    for (const receiver of receivers) receiver.child.kill();
    await Promise.all([api?.stop(), worker?.stop()]);
    await rm(folder, { recursive: true, force: true });
  });

  it('each accepts a real signed delivery of a signature', async () => {
    const petition = await publishedPetition(api.baseUrl, ownerToken);
    const signer = (await login(api.baseUrl, await createTestUser())).accessToken;
    const signed = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(signer) },
      body: '{}',
    });
    expect(signed.status).to.equal(201);
    for (const receiver of receivers) {
      const delivery = await eventually(
        async () => {
          const listed = await json(await fetch(`${api.baseUrl}/v1/webhooks/${receiver.webhookId}/deliveries`, { headers: bearer(ownerToken) }));
          // The endpoint's creation ping is delivered too: the signature's delivery is the one looked for.
          return listed.data.find(
            (candidate: { status: string; event_type: string }) => candidate.status === 'delivered' && candidate.event_type === 'signature.created',
          );
        },
        60_000,
        `the ${receiver.language} receiver's delivery`,
      );
      expect(delivery.last_status_code, receiver.language).to.equal(204);
      expect(receiver.output(), receiver.language).to.include(`signature.created ${delivery.id}`);
    }
  });

  it('each refuses a delivery without a signature, under a wrong secret, or signed more than 5 minutes ago', async () => {
    const body = JSON.stringify({ id: 'a', type: 'signature.created', data: {} });
    const now = Math.floor(Date.now() / 1000);
    for (const { language, port, secret } of receivers) {
      expect(await post(port, body, {}), `${language}: no signature`).to.equal(400);
      expect(await post(port, body, { 'x-rally-signature-v2': signatureV2(['whsec_wrong'], body, now) }), `${language}: wrong secret`).to.equal(400);
      expect(await post(port, body, { 'x-rally-signature-v2': signatureV2([secret], body, now - 600) }), `${language}: 10 minutes old`).to.equal(400);
      expect(await post(port, `${body} `, { 'x-rally-signature-v2': signatureV2([secret], body, now) }), `${language}: body changed`).to.equal(400);
      // During a rotation a delivery carries one v1 per secret; the receiver's may be the second.
      expect(await post(port, body, { 'x-rally-signature-v2': signatureV2(['whsec_old', secret], body, now) }), `${language}: rotation`).to.equal(204);
    }
  });
});
