// The email channel of notifications, end to end: replies to a comment make comment.reply notifications; the worker mails them (caught by a local SMTP server)
// one by one, or as a digest when more than a few arrive in one window, every recipient from one workflow; the one-click unsubscribe link turns the type's
// email off.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../support/smtp.ts';
import { testEnvironment } from '../support/environment.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Person = TestUser & { token: string };

describe('notification emails', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;
  let creator: Person;
  let replier: Person;
  const taskQueue = uniqueTaskQueue('notification-emails');

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const post = (path: string, token: string | undefined, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // Long header values are folded over several lines (RFC 5322); unfolded here.
  const header = (message: CaughtMail, name: string) =>
    new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'mi')
      .exec(message.raw.split(/\r?\n\r?\n/)[0]!)?.[1]
      ?.replace(/\r?\n[ \t]+/g, '')
      .trim();
  const mailsTo = (address: string) => mail.messages.filter((message) => message.to.includes(address));

  /** `count` replies by the replier to a fresh comment of `author`: `count` comment.reply notifications for the author. */
  async function replies(author: Person, count: number) {
    const petition = await publishedPetition(api.baseUrl, creator.token);
    const comment = (await json(await post(`/v1/petitions/${petition.id}/comments`, author.token, { body: 'Who is coming on Saturday?' }))).data;
    for (let index = 0; index < count; index += 1) {
      const reply = await post(`/v1/petitions/${petition.id}/comments`, replier.token, { body: `Count me in (${index})`, parent_id: comment.id });
      expect(reply.status).to.equal(201);
    }
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 6_000));

  before(async () => {
    mail = await startMailCatcher();
    const env = { RALLY_TASK_QUEUE: taskQueue, SMTP_URL: mail.url, RALLY_NOTIFICATION_EMAIL_WINDOW: '2s' };
    // One after the other: on a busy machine the worker's bundling slows the API's start past its limit.
    api = await startApi(env);
    worker = await startWorker(env);
    [creator, replier] = await Promise.all([person(), person()]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await mail.stop();
  });

  it('mails a single notification with a one-click List-Unsubscribe link (RFC 8058)', async () => {
    const author = await person();
    await replies(author, 1);
    const message = await mail.waitFor(author.email, /replied to your comment/);
    expect(header(message, 'List-Unsubscribe-Post')).to.equal('List-Unsubscribe=One-Click');
    expect(header(message, 'List-Unsubscribe')).to.match(/^<http:\/\/rally\.test\/v1\/notifications\/unsubscribe\/[A-Za-z0-9_.-]+>$/);
  });

  it("names the replier in plain words in the author's email: no link, at most 40 characters", async () => {
    const author = await person();
    const named = await createTestUser({ name: 'Claim your prize at evil.example/win and www.evil.example today, friends of the canal' });
    const linker = { ...named, token: (await login(api.baseUrl, named)).accessToken };
    const petition = await publishedPetition(api.baseUrl, creator.token);
    const comment = (await json(await post(`/v1/petitions/${petition.id}/comments`, author.token, { body: 'Who is coming on Saturday?' }))).data;
    expect((await post(`/v1/petitions/${petition.id}/comments`, linker.token, { body: 'Me!', parent_id: comment.id })).status).to.equal(201);
    const message = await mail.waitFor(author.email, /replied to your comment/);
    expect(message.subject).to.equal('Claim your prize at and today, friends… replied to your comment');
    expect(message.text).to.not.include('evil.example');
  });

  it('gathers more than a few notifications in one window into a single digest', async () => {
    const author = await person();
    await replies(author, 5);
    const digest = await mail.waitFor(author.email, /5 new notifications/);
    expect(digest.text.match(/replied to your comment/g)).to.have.length(5);
    await settle();
    expect(mailsTo(author.email)).to.have.length(1);
  });

  it('mails many recipients from one workflow, not a workflow each', async () => {
    const authors = [await person(), await person(), await person()];
    await Promise.all(authors.map((author) => replies(author, 1)));
    for (const author of authors) await mail.waitFor(author.email, /replied to your comment/);
    const runs: { type: string; workflowId: string }[] = [];
    for await (const execution of testEnvironment().temporal.client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
      runs.push({ type: execution.type, workflowId: execution.workflowId });
    }
    expect(runs.filter((run) => run.type === 'notificationEmails')).to.deep.equal([]);
    const digestIds = new Set(runs.filter((run) => run.type === 'notificationEmailDigests').map((run) => run.workflowId));
    expect([...digestIds]).to.deep.equal([`notification-email-digests-${taskQueue}`]);
  });

  it("turns the type's email off through the link, without login, and mails no more of that type", async () => {
    const author = await person();
    await replies(author, 1);
    const message = await mail.waitFor(author.email, /replied to your comment/);
    const link = header(message, 'List-Unsubscribe')!.slice(1, -1).replace(PUBLIC_URL, api.baseUrl);
    expect((await fetch(link)).status).to.equal(200);
    const response = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).to.equal(200);
    expect((await json(response)).data.email_off).to.deep.equal(['comment.reply']);
    const preferences = (await json(await fetch(`${api.baseUrl}/v1/notifications/preferences`, { headers: bearer(author.token) }))).data;
    expect(preferences['comment.reply']).to.deep.equal({ in_app: true, email: false });

    await replies(author, 1);
    await settle();
    expect(mailsTo(author.email)).to.have.length(1);
    const inApp = (await json(await fetch(`${api.baseUrl}/v1/notifications`, { headers: bearer(author.token) }))).data;
    expect(inApp.filter((notification: { type: string }) => notification.type === 'comment.reply')).to.have.length(2);
  });

  it('answers 404 for a forged unsubscribe link', async () => {
    const forged = `${Buffer.from(`${creator.id}:comment.reply`).toString('base64url')}.${'A'.repeat(27)}`;
    expect((await post(`/v1/notifications/unsubscribe/${forged}`, undefined)).status).to.equal(404);
  });
});
