// The login throttle against parallel and distributed guessing (issue 42): past RALLY_LOGIN_FAILURE_LIMIT failures for one email, from any address and API
// process, every attempt answers 429 with Retry-After until the window passes, the right password too and whether or not the account exists; only a browser
// that logged in before (its device cookie) still gets in, and the owner is emailed once per window.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifiedAccount } from '../support/browser-login.ts';
import { headerOf, requestFrom, type BoundAnswer } from '../support/bound-client.ts';
import { eventually } from '../support/events.ts';
import { parseExposition, sampleValue } from '../support/prometheus.ts';
import { logInOnForm } from '../support/provider-form.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

const LIMIT = 10;
const WINDOW_SECONDS = 30;
// Guesses come from 50 addresses of one IPv6 /64 through a trusted proxy hop (loopback IPv6 is ::1 alone: no
// other address can be bound) and from 50 IPv4 /24s, their client sockets bound to 127.x addresses.
const GUESSES = 50;
const FORM_CLIENT = { clientId: CLIENT.client_id, redirectUri: `${PUBLIC_URL}/auth/callback` };
const NOTICE_TITLE = 'Someone is trying passwords on your account';

type Person = { email: string; password: string };
type Source = { address?: string; forwardedFor?: string };

const THE_REST = 'the rest and the right password answer 429 until the window passes, but not in the owner’s browser';

describe('the login throttle: past the limit for one email, 429 from every address and API process, except from a known browser', function () {
  this.timeout(300_000);
  let provider: RunningProvider;
  let apis: RunningApi[] = [];
  let worker: RallyProcess;
  let mailDir: string;

  before(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'rally-login-throttle-mail-'));
    const port = await freePort();
    const limit = { RALLY_LOGIN_FAILURE_LIMIT: `${LIMIT}/${WINDOW_SECONDS}s` };
    provider = await startProvider(port, limit);
    const env = {
      ...limit,
      RALLY_IDP_PORT: String(port),
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      RALLY_TRUST_PROXY: '1',
      RALLY_TASK_QUEUE: uniqueTaskQueue('login-throttle'),
      RALLY_MAIL_DIR: mailDir,
      RALLY_NOTIFICATION_EMAIL_WINDOW: '1s',
    };
    // One after the other: on a busy machine parallel start-ups slow each other past their limit.
    apis = [await startApi(env), await startApi(env)];
    worker = await startWorker(env);
  });
  after(async () => {
    await Promise.all([...apis.map((api) => api.stop()), worker?.stop(), provider?.stop()]);
    if (mailDir) await rm(mailDir, { recursive: true, force: true });
  });

  /** Passwords the API processes sent to the identity provider to be checked against their hash. */
  async function passwordChecks(): Promise<number> {
    let sum = 0;
    for (const api of apis) sum += sampleValue(parseExposition(await (await fetch(`${api.baseUrl}/metrics`)).text()), 'rally_login_password_checks_total') ?? 0;
    return sum;
  }

  /** POST /v1/auth/login on API process `index % 2`, from a bound address or through the proxy hop. */
  const apiLogin = (index: number, credentials: Person, from: Source): Promise<BoundAnswer> =>
    requestFrom(from.address ?? '127.0.0.1', `${apis[index % 2]!.baseUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}) },
      body: JSON.stringify({ email: credentials.email, password: credentials.password }),
    });

  async function noticesTo(email: string): Promise<number> {
    let count = 0;
    for (const file of await readdir(mailDir)) {
      const text = await readFile(path.join(mailDir, file), 'utf8');
      if (text.includes(`To: ${email}`) && text.includes(NOTICE_TITLE)) count += 1;
    }
    return count;
  }

  const retryAfterOf = (answer: BoundAnswer) => Number(headerOf(answer, 'retry-after'));

  /** The whole rule for one account guessed at from `sources`; `deviceCookie` is its owner's browser's. */
  async function expectGuessingStopped(person: Person, sources: Source[], deviceCookie: string, strangers: string[]) {
    const before = await passwordChecks();
    const answers = await Promise.all(sources.map((from, index) => apiLogin(index, { email: person.email, password: `wrong-${index}` }, from)));
    // /metrics answers from a cache at most a second old: the next scrape must be a fresh one.
    await sleep(1_100);
    expect(await passwordChecks(), 'passwords checked against the hash').to.be.at.most(before + LIMIT);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).to.be.at.least(GUESSES - LIMIT);
    expect(answers.filter((answer) => answer.status !== 429).map((answer) => answer.status)).to.deep.equal(new Array(GUESSES - refused.length).fill(401));
    for (const answer of refused) {
      expect(retryAfterOf(answer)).to.be.within(1, WINDOW_SECONDS);
      expect(JSON.parse(answer.body)).to.include({ code: 'too_many_login_failures' });
    }

    // The right password, from an address that never guessed: through the API, and on the form of a browser never used for it.
    const right = await apiLogin(0, person, { address: strangers[0] });
    expect(right.status).to.equal(429);
    expect(retryAfterOf(right)).to.be.within(1, WINDOW_SECONDS);
    const stranger = await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: strangers[1] });
    expect(stranger.status).to.equal(429);
    expect(Number(stranger.retryAfter)).to.be.within(1, WINDOW_SECONDS);
    // The owner's browser still gets in, and is given its cookie again.
    const owner = await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: strangers[2], deviceCookie });
    expect(owner.status, owner.page).to.equal(303);
    expect(owner.deviceCookie).to.be.a('string');

    await eventually(async () => ((await noticesTo(person.email)) > 0 ? true : undefined), 60_000, 'the email telling the owner');
    // Until the window has passed; then the right password works from anywhere again.
    await sleep(retryAfterOf(right) * 1000 + 1000);
    expect((await apiLogin(1, person, { address: strangers[3] })).status).to.equal(200);
    expect(await noticesTo(person.email), 'emails to the owner in the window').to.equal(1);
  }

  it(`lets at most 10 of 50 parallel guesses from one IPv6 /64 reach the password check; ${THE_REST}`, async () => {
    const person = await verifiedAccount(provider.issuer);
    const known = await logInOnForm(provider.issuer, FORM_CLIENT, person);
    expect(known.status, known.page).to.equal(303);
    const sources = Array.from({ length: GUESSES }, (_, index) => ({ forwardedFor: `2001:db8:42:7::${(index + 1).toString(16)}` }));
    await expectGuessingStopped(person, sources, known.deviceCookie!, ['127.61.0.1', '127.61.0.2', '127.61.0.3', '127.61.0.4']);
  });

  it(`lets at most 10 of 50 parallel guesses from 50 IPv4 /24s reach the password check; ${THE_REST}`, async () => {
    const person = await verifiedAccount(provider.issuer);
    const known = await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: '127.62.0.1' });
    expect(known.status, known.page).to.equal(303);
    const sources = Array.from({ length: GUESSES }, (_, index) => ({ address: `127.60.${index}.1` }));
    await expectGuessingStopped(person, sources, known.deviceCookie!, ['127.62.1.1', '127.62.1.2', '127.62.1.3', '127.62.1.4']);
  });

  it('opens a locked account only with a device cookie signed for that account', async () => {
    const [person, other] = [await verifiedAccount(provider.issuer), await verifiedAccount(provider.issuer)];
    const own = (await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: '127.63.0.1' })).deviceCookie!;
    const others = (await logInOnForm(provider.issuer, FORM_CLIENT, other, { address: '127.63.0.2' })).deviceCookie!;
    for (let index = 0; index <= LIMIT; index += 1)
      await apiLogin(index, { email: person.email, password: 'wrong-password' }, { address: `127.63.1.${index + 1}` });
    const [nonce, mac] = own.split('.') as [string, string];
    const forged = `${nonce}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    for (const deviceCookie of [others, forged, `${randomUUID()}`]) {
      expect((await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: '127.63.0.3', deviceCookie })).status, deviceCookie).to.equal(429);
    }
    // One browser keeps the tokens of several accounts: the other account's login did not replace this one's.
    const both = (await logInOnForm(provider.issuer, FORM_CLIENT, other, { address: '127.63.0.2', deviceCookie: own })).deviceCookie!;
    expect((await logInOnForm(provider.issuer, FORM_CLIENT, person, { address: '127.63.0.2', deviceCookie: both })).status).to.equal(303);
  });

  it('answers an email without an account exactly as one with an account', async () => {
    const person = await verifiedAccount(provider.issuer);
    const nobody = { email: `nobody-${randomUUID().slice(0, 8)}@example.test`, password: 'wrong-password' };
    const answersFor = async (email: string, block: number) => {
      const answers = [];
      for (let index = 0; index <= LIMIT; index += 1) {
        const answer = await apiLogin(index, { email, password: 'wrong-password' }, { address: `127.64.${block}.${index + 1}` });
        const { type, title, code, detail } = JSON.parse(answer.body) as Record<string, unknown>;
        answers.push({ status: answer.status, retryAfter: headerOf(answer, 'retry-after') !== undefined, type, title, code, detail });
      }
      return answers;
    };
    const forAccount = await answersFor(person.email, 1);
    expect(forAccount.at(-1)).to.include({ status: 429, code: 'too_many_login_failures', retryAfter: true });
    expect(await answersFor(nobody.email, 2)).to.deep.equal(forAccount);
  });
});
