// The SDK's transport: which answers are retried (408, 409 while the key is in use, 429, 500, 502, 503, 504) and which are not, after Retry-After or a jittered
// backoff, per-attempt timeouts, the caller's AbortSignal, and a token provider asked again after a 401 token_expired. A real Rally answers the 429 and the
// expired token; a stand-in server scripts the answers Rally gives rarely.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRallyClient, loginSession, RallyProblem, unwrap } from '../../clients/typescript/src/index.ts';
import { repeatable } from '../../clients/typescript/src/retry.ts';
import { createTestUser } from '../support/identity.ts';
import { runRallyCli, startApi, type RunningApi } from '../support/processes.ts';

type Seen = { method: string; path: string; key: string | undefined; authorization: string | undefined; at: number };
type Answer = (response: ServerResponse) => void;

const problem =
  (status: number, slug: string, headers: Record<string, string> = {}): Answer =>
  (response) =>
    response
      .writeHead(status, { 'Content-Type': 'application/problem+json', ...headers })
      .end(JSON.stringify({ type: `https://rally.test/problems/${slug}`, title: slug, status, code: slug }));
const ok: Answer = (response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{"status":"ok"}}');

/** A server that answers each request with the next scripted answer (then 200) and records what it saw. */
async function standIn(answers: Answer[]) {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const header = (name: string) => request.headers[name] as string | undefined;
    seen.push({ method: request.method!, path: request.url!, key: header('idempotency-key'), authorization: header('authorization'), at: Date.now() });
    request.resume();
    (answers.shift() ?? ok)(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('the TypeScript SDK transport', function () {
  this.timeout(120_000);

  it('repeats after an uncertain failure exactly the POSTs whose routes take an Idempotency-Key in openapi.json', () => {
    type Operation = { parameters?: { name?: string; $ref?: string }[] };
    const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, { post?: Operation }> };
    const posts = Object.entries(document.paths).filter(([path, item]) => item.post && /^\/(v1|oauth)\//.test(path));
    expect(posts.length).to.be.above(20);
    for (const [path, { post }] of posts) {
      const keyed = (post!.parameters ?? []).some((parameter) => /idempotency/i.test(parameter.name ?? parameter.$ref ?? ''));
      const request = new Request(`http://rally.test${path}`, { method: 'POST', headers: { 'Idempotency-Key': 'k' } });
      expect(repeatable(request), path).to.equal(keyed);
    }
  });

  it('retries 408, 500, 502, 503 and 504 on a keyed POST with the same Idempotency-Key, at most maxRetries times', async () => {
    const server = await standIn([
      problem(500, 'internal-error'),
      problem(502, 'bad-gateway'),
      problem(504, 'gateway-timeout'),
      problem(408, 'timeout'),
      problem(503, 'service-unavailable'),
    ]);
    try {
      const client = createRallyClient({ baseUrl: server.baseUrl, retry: { initialDelayMs: 10, maxRetries: 2 } });
      const first = await client.POST('/v1/petitions', { body: { title: 'Light the underpass', description: 'x'.repeat(40) } });
      expect(first.response.status, 'maxRetries 2: three attempts, the last answer returned').to.equal(504);
      const second = await client.POST('/v1/petitions', { body: { title: 'Light the underpass', description: 'x'.repeat(40) } });
      expect(second.response.status).to.equal(200);
      const keys = server.seen.map((request) => request.key);
      expect(keys[1]).to.equal(keys[0]);
      expect(keys[2]).to.equal(keys[0]);
      expect(keys[3]).to.not.equal(keys[0]);
      expect(new Set(keys.slice(3)).size).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('retries a 409 only while the Idempotency-Key is in use, and never an uncertain failure of an unkeyed POST', async () => {
    const server = await standIn([problem(409, 'idempotency-key-in-use', { 'Retry-After': '1' }), problem(409, 'conflict'), problem(500, 'internal-error')]);
    try {
      const client = createRallyClient({ baseUrl: server.baseUrl, retry: { initialDelayMs: 10 } });
      const started = Date.now();
      expect((await client.POST('/v1/petitions/{id}/signatures', { params: { path: { id: 'p' } }, body: {} })).response.status).to.equal(409);
      expect(server.seen).to.have.length(2);
      expect(server.seen[1]!.at - started, 'Retry-After: 1 honoured').to.be.at.least(900);
      expect((await client.POST('/v1/auth/refresh', { body: { refresh_token: 'r' } })).response.status).to.equal(500);
      expect(server.seen).to.have.length(3);
    } finally {
      await server.close();
    }
  });

  it('abandons an attempt after timeoutMs and retries a read; the caller’s AbortSignal stops everything', async () => {
    // The first attempt is never answered: only a retry can bring the 200. Every later attempt is answered, so a machine that
    // stalls one of them past the 300 ms gets its answer from the next (five retries), and the rule, not the machine's speed, decides.
    const silent: Answer = () => undefined;
    const slowRead = await standIn([silent]);
    // The caller gives up while Rally is still working on the request: no answer, no further attempt.
    const controller = new AbortController();
    let abortedAt = 0;
    const givenUp: Answer = () => {
      abortedAt = Date.now();
      controller.abort(new Error('the user went away'));
    };
    const abandoned = await standIn([givenUp]);
    try {
      const client = createRallyClient({ baseUrl: slowRead.baseUrl, timeoutMs: 300, retry: { initialDelayMs: 10, maxRetries: 5 } });
      expect((await client.GET('/health')).response.status).to.equal(200);
      expect(slowRead.seen.length, 'the unanswered attempt, then the retries up to the first answered').to.be.within(2, 6);
      expect(slowRead.seen.every((request) => request.method === 'GET' && request.path === '/health')).to.equal(true);
      const aborted = await createRallyClient({ baseUrl: abandoned.baseUrl, timeoutMs: 10_000, retry: { initialDelayMs: 10 } })
        .GET('/health', { signal: controller.signal })
        .catch((error: unknown) => error);
      expect(aborted).to.have.property('message', 'the user went away');
      expect(Date.now() - abortedAt, 'rejected on the abort, not after the 10 s attempt timeout').to.be.below(5_000);
      expect(abandoned.seen, 'no attempt after the abort').to.have.length(1);
    } finally {
      await Promise.all([slowRead.close(), abandoned.close()]);
    }
  });

  it('rejects with the reason at once when the caller’s signal was aborted before the call', async () => {
    const server = await standIn([]);
    try {
      const client = createRallyClient({ baseUrl: server.baseUrl });
      const aborted = await client.GET('/health', { signal: AbortSignal.abort(new Error('already gone')) }).catch((error: unknown) => error);
      expect(aborted).to.have.property('message', 'already gone');
      expect(server.seen).to.have.length(0);
    } finally {
      await server.close();
    }
  });

  describe('against a real Rally', () => {
    let api: RunningApi;
    before(async () => (api = await startApi()));
    after(async () => api?.stop());

    it("waits out Rally's 429 for its Retry-After", async () => {
      const limited = await startApi({ RALLY_RATE_LIMIT_RPS: '1', RALLY_RATE_LIMIT_BURST: '2' });
      try {
        const statuses: number[] = [];
        const recording: typeof fetch = async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        };
        const client = createRallyClient({ baseUrl: limited.baseUrl, fetch: recording, retry: { maxRetries: 5 } });
        const answers = await Promise.all([1, 2, 3, 4].map(() => client.POST('/v1/auth/refresh', { body: { refresh_token: 'not-a-refresh-token' } })));
        expect(statuses, 'the limiter answered 429 at least once').to.include(429);
        expect(answers.map(({ response }) => response.status)).to.deep.equal([401, 401, 401, 401]);
      } finally {
        await limited.stop();
      }
    });

    it('asks the token provider again, once, after a 401 token_expired; loginSession refreshes and revokes', async () => {
      const user = await createTestUser();
      // A token that expires in a second, from the CLI that issues tokens with RALLY_ACCESS_TOKEN_TTL.
      const { stdout } = await runRallyCli(['loadtest', 'users', '--count', '1'], { RALLY_ACCESS_TOKEN_TTL: '1s' });
      const expired = (JSON.parse(stdout.trim()) as { access_token: string }).access_token;
      const login = unwrap(
        await createRallyClient({ baseUrl: api.baseUrl }).POST('/v1/auth/login', { body: { email: user.email, password: user.password } }),
      ).data;
      await new Promise((resolve) => setTimeout(resolve, 7_000)); // past its expiry and the API's 5 s clock tolerance
      const asked: boolean[] = [];
      const provider = ({ refresh }: { refresh: boolean }) => (asked.push(refresh), refresh ? login.access_token : expired);
      const me = await createRallyClient({ baseUrl: api.baseUrl, token: provider }).GET('/v1/users/me');
      expect(me.response.status).to.equal(200);
      expect(asked).to.deep.equal([false, true]);

      const session = loginSession({ baseUrl: api.baseUrl, tokens: { ...login, access_token: expired } });
      const client = createRallyClient({ baseUrl: api.baseUrl, token: session });
      expect(unwrap(await client.GET('/v1/users/me')).data.id).to.equal(user.id);
      expect(session.current().refresh_token).to.not.equal(login.refresh_token);
      await session.revoke();
      const afterRevoke = await Promise.resolve(session({ refresh: true })).catch((error: unknown) => error);
      expect(afterRevoke).to.be.instanceOf(RallyProblem).with.property('status', 401);
    });
  });
});
