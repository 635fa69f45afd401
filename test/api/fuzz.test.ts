// Every operation the API declares (its OpenAPI document, with the routes of Rally's own pages) gets generated malformed requests (fast-check, fixed seed),
// with no credential, a real user's token, a real API key and garbage. No answer may be a 5xx or take over 5 s, and every 4xx is a problem document (or the
// form the operation documents for that status: OAuth errors, HTML pages).
import { expect } from 'chai';
import fc from 'fast-check';
import { fuzzedDocument, operationsOf, type Operation } from '../support/fuzz/openapi.ts';
import { fuzzRequests, type Credentials, type KnownValues } from '../support/fuzz/requests.ts';
import { describeRequest, send, verdict } from '../support/fuzz/send.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// Malformed: wrong types per property, missing and extra fields, 100k-character strings, deep nesting, invalid
// UTF-8, NUL bytes, numbers out of range, garbage path and query values, wrong content types and encodings,
// JSON cut short. FUZZ_RUNS sets the requests per operation, FUZZ_SEED the seed (fixed unless set); a failure
// names the operation's seed and the request, so it replays.
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_126);
const PARALLEL = 3;

// Reads first, writes next, deletions last, and the account's own deletion at the very end, so
// that a generated request that happens to be valid takes away as little as possible from the rest.
function order(operation: Operation): number {
  if (operation.method === 'DELETE' && operation.path.endsWith('/me')) return 4;
  return { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 3 }[operation.method] ?? 2;
}

describe('fuzzing every declared operation', function () {
  this.timeout(600_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let credentials: Credentials;
  let known: KnownValues;

  before(async () => {
    const env = {
      RALLY_TASK_QUEUE: uniqueTaskQueue('fuzz'),
      // The limits have tests of their own; here they would only turn most requests into 429s.
      RALLY_RATE_LIMIT_RPS: '100000',
      RALLY_RATE_LIMIT_BURST: '100000',
      RALLY_LOGIN_FAILURE_LIMIT: '100000/15m',
      RALLY_REPORT_LIMIT_PER_HOUR: '100000',
    };
    // The worker answers the petition workflow's updates (publish, close) that some routes wait for.
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    const user = await createTestUser();
    const session = await login(api.baseUrl, user);
    credentials = { accessToken: session.accessToken, apiKey: (await createApiKey(api.baseUrl, session.accessToken, 'full', 'fuzz')).key };
    const petition = await publishedPetition(api.baseUrl, session.accessToken);
    const comment = await json(
      await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(session.accessToken) },
        body: JSON.stringify({ body: 'A comment to fuzz around.' }),
      }),
    );
    const organization = await json(
      await fetch(`${api.baseUrl}/v1/organizations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(session.accessToken) },
        body: JSON.stringify({ name: `Fuzz ${user.slug}` }),
      }),
    );
    known = {
      id: [petition.id, comment.data.id, organization.data.id].filter(Boolean),
      slug: [petition.slug, user.slug, organization.data.slug].filter(Boolean),
      org_id: [organization.data.id].filter(Boolean),
    };
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  it('answers every generated request with a 2xx, 3xx or a 4xx problem, within 5 s, and stays healthy', async () => {
    const operations = operationsOf(fuzzedDocument(api.baseUrl)).sort((a, b) => order(a) - order(b));
    expect(operations.length).to.be.above(50);
    const failures: string[] = [];
    let sent = 0;

    async function fuzz(operation: Operation, index: number): Promise<void> {
      const property = fc.asyncProperty(fuzzRequests(operation, credentials, known), async (request) => {
        sent += 1;
        const problem = verdict(await send(api.baseUrl, request), operation);
        if (problem) throw new Error(`${describeRequest(request)}\n    ${problem}`);
      });
      // No shrinking: each step is a request, and a hang would cost 5 s a step.
      const details = await fc.check(property, { seed: SEED + index, numRuns: RUNS, endOnFailure: true });
      if (details.failed) {
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        failures.push(`${operation.method} ${operation.path} (seed ${SEED + index}, run ${details.numRuns}):\n    ${error}`);
      }
    }

    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < operations.length) {
          const index = next++;
          await fuzz(operations[index]!, index);
        }
      }),
    );

    expect(failures, `${failures.length} of ${operations.length} operations broke the rules (${sent} requests):\n${failures.join('\n')}`).to.deep.equal([]);
    const health = await fetch(`${api.baseUrl}/health`, { signal: AbortSignal.timeout(5_000) });
    expect(health.status).to.equal(200);
  });
});
