// Malformed requests found by fuzzing from outside: each must be a precise 4xx problem, never a 500,
// a reset or an empty answer.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

/** Sends raw bytes and returns what the server wrote back before closing. */
function rawExchange(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('malformed requests', function () {
  this.timeout(60_000);
  let api: RunningApi;
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  before(async () => {
    api = await startApi();
  });
  after(async () => {
    await api.stop();
  });

  describe('NUL characters', () => {
    it('answers 422 invalid_characters for a NUL in a body field', async () => {
      const response = await post('/v1/auth/login', JSON.stringify({ email: 'a\u0000@example.test', password: 'secret' }));
      expect(response.status).to.equal(422);
      expect((await json(response)).errors).to.deep.include({
        field: 'email',
        code: 'invalid_characters',
        message: 'must not contain the NUL character (\\u0000)',
      });
    });

    it('answers 422 invalid_characters for a NUL in a query value', async () => {
      const response = await fetch(`${api.baseUrl}/v1/petitions?tags=%00`);
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ field: 'tags', code: 'invalid_characters' });
    });

    it('answers 422 invalid_characters for a NUL in a path parameter', async () => {
      const response = await fetch(`${api.baseUrl}/v1/petitions/abc%00def`);
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ code: 'invalid_characters' });
    });
  });

  describe('ids', () => {
    const id = '7d444840-9dc0-11d1-b245-5ffdce74fad2';
    const spellings = [`urn:uuid:${id}`, `URN:UUID:${id}`, `{${id}}`, id.replaceAll('-', ''), `${id.slice(0, 9)}${id.slice(9).replaceAll('-', '')}`];

    it('answers 422 invalid_format to a uuid path parameter in any spelling but 8-4-4-4-12', async () => {
      for (const spelling of spellings) {
        const response = await fetch(`${api.baseUrl}/v1/petitions/${encodeURIComponent(spelling)}/comments`);
        expect(response.status, spelling).to.equal(422);
        expect((await json(response)).errors[0], spelling).to.include({ field: 'id', code: 'invalid_format' });
      }
    });

    it('answers 422 invalid_format to a uuid query value spelled as a URN', async () => {
      const response = await fetch(`${api.baseUrl}/v1/petitions?categoryId=urn:uuid:${id}`);
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ field: 'categoryId', code: 'invalid_format' });
    });

    it('still takes the canonical spelling, in either case', async () => {
      expect((await fetch(`${api.baseUrl}/v1/petitions/${id}/comments`)).status).to.equal(404);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${id.toUpperCase()}/comments`)).status).to.equal(404);
    });
  });

  describe('bodies', () => {
    it('answers 400 nesting_too_deep to JSON nested 5,000 levels', async () => {
      const response = await post('/v1/auth/login', `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
      expect(response.status).to.equal(400);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect((await json(response)).code).to.equal('nesting_too_deep');
    });

    it('answers 400 invalid_encoding to a body that does not decode under its Content-Encoding', async () => {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const response = await post('/v1/auth/login', Buffer.from('definitely not compressed'), { 'content-encoding': encoding });
        expect(response.status, encoding).to.equal(400);
        expect((await json(response)).code).to.equal('invalid_encoding');
      }
    });

    it('answers 415 to an encoding Rally does not accept', async () => {
      const response = await post('/v1/auth/login', Buffer.from('xx'), { 'content-encoding': 'compress' });
      expect(response.status).to.equal(415);
      expect((await json(response)).code).to.equal('unsupported_encoding');
    });

    it('reads a gzip body that does decode', async () => {
      const response = await post('/v1/auth/login', gzipSync(JSON.stringify({ email: 'nobody@example.test' })), { 'content-encoding': 'gzip' });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ field: 'password', code: 'required' });
    });

    it('answers 413 with Connection: close to a body over the limit, without resetting the connection', async () => {
      const { status, connection, body } = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${api.baseUrl}/v1/auth/login`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
          },
        );
        req.on('error', reject);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const writeMore = () => {
          while (sent < 2 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', writeMore);
          }
          req.end();
        };
        writeMore();
      });
      expect(status).to.equal(413);
      expect(connection).to.equal('close');
      expect(JSON.parse(body).type).to.match(/\/problems\/payload-too-large$/);
    });
  });

  describe('bodies nobody reads', () => {
    /** Sends `bytes` with Connection: close and resolves with the answer, or rejects if the connection was reset. */
    const closingExchange = (method: string, path: string, bytes: Buffer) =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          `${api.baseUrl}${path}`,
          { method, agent: false, headers: { connection: 'close', 'content-type': 'application/json', 'content-length': String(bytes.length) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'] }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(bytes);
      });
    const body = Buffer.from(JSON.stringify(['x'.repeat(4 * 1024 * 1024)]));

    it('answers a GET that carries a body it does not read, without resetting the connection', async () => {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        expect((await closingExchange('GET', '/openapi.json', body)).status).to.equal(200);
      }
    });

    it('answers 401 to a POST refused before its body is read, without resetting the connection', async () => {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const answer = await closingExchange('POST', '/v1/petitions', body);
        expect(answer.status).to.equal(401);
        expect(answer.type).to.match(/^application\/problem\+json/);
      }
    });
  });

  describe("requests Node's HTTP parser refuses", () => {
    it('answers 431 problem+json to headers over the limit', async () => {
      const answer = await rawExchange(Number(new URL(api.baseUrl).port), `GET /health HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(answer).to.match(/^HTTP\/1\.1 431 /);
      expect(answer).to.match(/content-type: application\/problem\+json/i);
      expect(answer).to.match(/x-api-version: 1/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).status).to.equal(431);
    });

    it('answers 400 problem+json to raw bytes in the request line', async () => {
      const answer = await rawExchange(Number(new URL(api.baseUrl).port), 'GET /\u0001\u0002 HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(answer).to.match(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).type).to.match(/\/problems\/bad-request$/);
    });
  });

  describe('Idempotency-Key on routes that show a secret', () => {
    it('does not replay a raw API key: the retry answers 409 idempotency_secret_not_replayable with the key id', async () => {
      const session = await login(api.baseUrl, await createTestUser());
      const create = () =>
        post('/v1/api-keys', JSON.stringify({ name: 'ci', scopes: ['read'] }), { ...bearer(session.accessToken), 'idempotency-key': 'secret-once-1' });
      const first = await create();
      expect(first.status).to.equal(201);
      const created = (await json(first)).data;
      const retry = await create();
      expect(retry.status).to.equal(409);
      const problem = await json(retry);
      expect(problem).to.include({ code: 'idempotency_secret_not_replayable', resource_id: created.id });
      expect(JSON.stringify(problem)).to.not.include(created.key);
    });

    it('ignores Idempotency-Key on login: each login is its own', async () => {
      const user = await createTestUser();
      const attempt = () => post('/v1/auth/login', JSON.stringify({ email: user.email, password: user.password }), { 'idempotency-key': 'login-once' });
      const [first, second] = [await attempt(), await attempt()];
      expect([first.status, second.status]).to.deep.equal([200, 200]);
      expect(second.headers.get('idempotent-replayed')).to.equal(null);
      expect((await json(second)).data.refresh_token).to.not.equal((await json(first)).data.refresh_token);
    });
  });
});
