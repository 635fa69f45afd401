// Signing with RECAPTCHA_SECRET set: the API asks a verifier that speaks reCAPTCHA's siteverify
// protocol (form POST of secret, response, remoteip; JSON {success}) — here a local stand-in.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('POST /v1/petitions/{id}/signatures with reCAPTCHA', function () {
  this.timeout(60_000);
  let verifier: Server;
  const seen: URLSearchParams[] = [];
  let api: RunningApi;
  let worker: RallyProcess;
  const taskQueue = uniqueTaskQueue('recaptcha');

  before(async () => {
    verifier = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(form);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ success: form.get('secret') === 'test-secret' && form.get('response') === 'solved' }));
      });
    });
    await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
    const address = verifier.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const env = { RALLY_TASK_QUEUE: taskQueue, RECAPTCHA_SECRET: 'test-secret', RECAPTCHA_VERIFY_URL: `http://127.0.0.1:${port}/siteverify` };
    [api, worker] = await Promise.all([startApi(env), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    verifier.close();
  });

  it('signs with a solved captcha, refuses an unsolved one with 403 and a missing one with 422', async () => {
    const token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const petition = await publishedPetition(api.baseUrl, token);
    const [solved, unsolved, missing] = await createTokenUsers(3);
    const sign = (signer: { access_token: string }, body: object) =>
      fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(signer.access_token) },
        body: JSON.stringify(body),
      });
    expect((await sign(solved!, { recaptchaToken: 'solved' })).status).to.equal(201);
    const refused = await sign(unsolved!, { recaptchaToken: 'robot' });
    expect(refused.status).to.equal(403);
    expect((await json(refused)).code).to.equal('captcha_failed');
    expect((await sign(missing!, {})).status).to.equal(422);
    expect(seen[0]?.get('remoteip')).to.be.a('string');
  });
});
