// `npx rally webhooks listen` (issue 47, webhooks on a laptop), run as a child process against a
// started Rally (API and worker, not told to allow private addresses) and a local receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const ROOT = new URL('../../', import.meta.url);

describe('npx rally webhooks listen', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;
  let token: string;

  before(async () => {
    // Development settings: a receiver on this machine is accepted without RALLY_WEBHOOK_ALLOW_PRIVATE.
    const env = { RALLY_WEBHOOK_RETRY_INITIAL: '200ms', RALLY_WEBHOOK_TIMEOUT: '2s', RALLY_TASK_QUEUE: uniqueTaskQueue('webhooks-listen') };
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  function listen(args: string[]): { child: ChildProcess; lines: () => Record<string, unknown>[]; output: () => string } {
    const child = spawn(process.execPath, ['bin/rally.js', 'webhooks', 'listen', ...args], {
      cwd: ROOT,
      env: { ...process.env, RALLY_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = () =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { child, lines, output: () => `${stdout}\n${stderr}` };
  }

  it('registers an endpoint, forwards each signed delivery with the receiver answering, prints both, and deletes the endpoint on Ctrl-C', async () => {
    receiver.script('/hooks', ['201']);
    const cli = listen(['--forward-to', receiver.url('/hooks'), '--url', api.baseUrl, '--events', 'petition.created']);
    try {
      const started = await eventually(async () => cli.lines().find((line) => line.webhook_id), 60_000, `the listener starting: ${cli.output()}`);
      expect(started).to.include({ forward_to: receiver.url('/hooks') });
      expect(started.events).to.deep.equal(['petition.created']);
      const secret = String(started.secret);
      const webhookId = String(started.webhook_id);

      // The endpoint's creation ping comes through first.
      const [ping] = await receiver.waitFor('/hooks', 1, 30_000, 'pings');
      expect(await verify(secret, ping!.body, String(ping!.headers['x-rally-signature']))).to.equal(true);

      const created = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({
          title: 'Light the underpass at night',
          description: 'The underpass by the station is dark after eight; the council should light it.',
        }),
      });
      expect(created.status).to.equal(201);
      const [delivery] = await receiver.waitFor('/hooks', 1, 30_000);
      expect(delivery!.headers['x-rally-event']).to.equal('petition.created');
      expect(await verify(secret, delivery!.body, String(delivery!.headers['x-rally-signature']))).to.equal(true);
      const deliveryId = String(delivery!.headers['x-rally-delivery-id']);

      // Printed with the receiver's answer, which is also what Rally recorded for the attempt.
      const printed = await eventually(async () => cli.lines().find((line) => line.delivery_id === deliveryId), 10_000, 'the printed delivery');
      expect(printed).to.include({ event: 'petition.created', status: 201, answer: 'answer 1: 201' });
      expect(cli.lines().find((line) => line.event === 'ping')).to.include({ status: 200 });
      const recorded = await eventually(async () => {
        const answer = await json(await fetch(`${api.baseUrl}/v1/webhooks/${webhookId}/deliveries/${deliveryId}`, { headers: bearer(token) }));
        return answer.data?.finished_at ? answer.data : undefined;
      });
      expect(recorded).to.include({ status: 'delivered', last_status_code: 201 });

      const exited = new Promise<number | null>((resolve) => cli.child.once('exit', (code) => resolve(code)));
      cli.child.kill('SIGINT');
      expect(await exited, cli.output()).to.equal(0);
      expect(cli.lines().at(-1)).to.deep.equal({ removed: webhookId });
      expect((await fetch(`${api.baseUrl}/v1/webhooks/${webhookId}`, { headers: bearer(token) })).status).to.equal(404);
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  });

  it('answers Rally 502 and prints why when the receiver cannot be reached', async () => {
    const cli = listen(['--forward-to', 'http://127.0.0.1:9/nothing-here', '--url', api.baseUrl]);
    try {
      const started = await eventually(async () => cli.lines().find((line) => line.webhook_id), 60_000, `the listener starting: ${cli.output()}`);
      const ping = await eventually(async () => cli.lines().find((line) => line.event === 'ping'), 30_000, 'the ping printed');
      expect(ping).to.include({ status: null });
      expect(String(ping.error)).to.match(/^could not forward to http:\/\/127\.0\.0\.1:9\/nothing-here/);
      const listed = await eventually(async () => {
        const answer = await json(await fetch(`${api.baseUrl}/v1/webhooks/${String(started.webhook_id)}/deliveries`, { headers: bearer(token) }));
        return answer.data.find((delivery: { last_status_code: number | null }) => delivery.last_status_code === 502);
      });
      expect(listed).to.include({ cause: 'ping' });
    } finally {
      // Stopped as a developer would, so the endpoint is deleted before the API stops.
      const exited = new Promise((resolve) => cli.child.once('exit', resolve));
      cli.child.kill('SIGINT');
      await exited;
    }
  });
});
