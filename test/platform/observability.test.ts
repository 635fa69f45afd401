// Issue 17, Observability: one signing-and-webhook run through a real API and worker, with a local OTLP collector, then what an operator would look at:
// /metrics of both processes, one trace from the sign request to each delivery attempt, and logs that name their ids and hold no secret.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { expect } from 'chai';
import WebSocket from 'ws';
import { RallyDeliveryOutcome, RallyPetitionId, RallyWebhookDeliveryId, RallyWebhookEndpointId } from '../../workflows/search-attributes.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login, type Session, type TestUser } from '../support/identity.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { publishedPetition } from '../support/petitions.ts';
import { parseExposition, sampleValue } from '../support/prometheus.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

describe('Observability (metrics, traces, logs)', function () {
  this.timeout(180_000);
  const metricsToken = `metrics-${randomBytes(12).toString('hex')}`;
  const logs = { api: '', worker: '' };
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let api: RunningApi;
  let worker: RallyProcess;
  let workerMetricsUrl: string;
  let creator: TestUser;
  let signer: TestUser;
  let creatorSession: Session;
  let signerSession: Session;
  let refreshed: Session['accessToken'];
  let apiKey: string;
  let webhookSecret: string;
  let petitionId: string;
  let deliveryRequestId: string;
  let deliveryId: string;
  let endpointId: string;

  before(async () => {
    [otlp, receiver] = await Promise.all([startOtlpReceiver(), startWebhookReceiver()]);
    const workerMetricsPort = await freePort();
    workerMetricsUrl = `http://127.0.0.1:${workerMetricsPort}/metrics`;
    const env = {
      ...SHORT_WINDOWS,
      RALLY_TASK_QUEUE: uniqueTaskQueue('observability'),
      RALLY_METRICS_TOKEN: metricsToken,
      RALLY_WORKER_METRICS_PORT: String(workerMetricsPort),
      // Two signatures per address per hour, so the third sign request meets the limit.
      RALLY_SIGN_LIMIT_PER_HOUR: '2',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    // The API exports in the default encoding (protobuf), the worker in the other one (JSON).
    [api, worker] = await Promise.all([
      startApi(env, { onOutput: (chunk) => (logs.api += chunk) }),
      startWorker({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, { onOutput: (chunk) => (logs.worker += chunk) }),
    ]);

    creator = await createTestUser();
    signer = await createTestUser();
    creatorSession = await login(api.baseUrl, creator);
    signerSession = await login(api.baseUrl, signer);
    apiKey = (await createApiKey(api.baseUrl, creatorSession.accessToken, 'full')).key;
    const refresh = await fetch(`${api.baseUrl}/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: signerSession.refreshToken }),
    });
    refreshed = (await json(refresh)).data.access_token;

    // The receiver fails the first attempt, so the delivery takes a retry.
    receiver.script('/hook', ['500', '200']);
    const endpoint = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(apiKey) },
      body: JSON.stringify({ url: receiver.url('/hook'), events: ['signature.created'] }),
    });
    ({ secret: webhookSecret, id: endpointId } = (await json(endpoint)).data);
    petitionId = (await publishedPetition(api.baseUrl, creatorSession.accessToken, { title: 'Plant trees along the river' })).id;

    const sign = (token: string) =>
      fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ comment: 'For the shade' }),
      });
    const signed = await sign(refreshed);
    expect(signed.status).to.equal(201);
    deliveryRequestId = signed.headers.get('x-request-id')!;
    expect((await sign(refreshed)).status, 'the same signer again').to.equal(409);
    expect((await sign(creatorSession.accessToken)).status, 'past the per-address limit').to.equal(429);

    const [, delivered] = await receiver.waitFor('/hook', 2, 60_000);
    expect(delivered!.headers['x-rally-event']).to.equal('signature.created');
    deliveryId = String(delivered!.headers['x-rally-delivery-id']);
  });

  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), receiver?.close()]);
  });

  const scrape = (url: string, token = metricsToken) => fetch(url, token ? { headers: bearer(token) } : {});

  describe('GET /metrics', () => {
    it('answers 401 with a problem without the RALLY_METRICS_TOKEN bearer, on the API and the worker', async () => {
      for (const url of [`${api.baseUrl}/metrics`, workerMetricsUrl]) {
        for (const token of ['', 'not-the-token', `${metricsToken}x`]) {
          const response = await scrape(url, token);
          expect(response.status, `${url} with ${token}`).to.equal(401);
          expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect((await json(response)).status).to.equal(401);
        }
      }
    });

    it('answers scrapes within a second from one collection, on the API and the worker, still only with the token', async () => {
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      for (const url of [`${api.baseUrl}/metrics`, workerMetricsUrl]) {
        await pause(1_100);
        // A collection reads the process's CPU time and, on the API, counts the scrape before it:
        // a second collection could not give the same bytes.
        const storm = await Promise.all(Array.from({ length: 5 }, () => scrape(url)));
        const again = await scrape(url);
        const bodies = await Promise.all([...storm, again].map((response) => response.text()));
        expect(new Set(bodies).size, `${url}: one collection for six scrapes within a second`).to.equal(1);
        expect((await scrape(url, 'not-the-token')).status).to.equal(401);
        await pause(1_100);
        expect(await (await scrape(url)).text(), `${url}: collected again after a second`).to.not.equal(bodies[0]);
      }
    });

    it('shows the API requests by route template, signatures, rate-limit refusals, WebSockets, the pool and the dependencies', async () => {
      const socket = new WebSocket(`${api.baseUrl.replace('http', 'ws')}/v1/realtime`);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const response = await scrape(`${api.baseUrl}/metrics`);
      socket.close();
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain/);
      const samples = parseExposition(await response.text());
      const sign = { route: '/v1/petitions/:id/signatures', method: 'POST' };
      expect(sampleValue(samples, 'rally_http_requests_total', { ...sign, status: '201' })).to.equal(1);
      expect(sampleValue(samples, 'rally_http_requests_total', { ...sign, status: '409' })).to.equal(1);
      expect(sampleValue(samples, 'rally_http_requests_total', { ...sign, status: '429' })).to.equal(1);
      expect(
        samples.some((sample) => sample.name === 'rally_http_requests_total' && sample.labels.route!.includes(petitionId)),
        'no raw ids as routes',
      ).to.equal(false);
      expect(sampleValue(samples, 'rally_http_request_duration_seconds_count', { ...sign, status: '201' })).to.equal(1);
      const signSeconds = sampleValue(samples, 'rally_http_request_duration_seconds_sum', { ...sign, status: '201' })!;
      expect(signSeconds).to.be.greaterThan(0).and.lessThan(30);
      expect(sampleValue(samples, 'rally_signatures_total', { outcome: 'accepted' })).to.equal(1);
      expect(sampleValue(samples, 'rally_signatures_total', { outcome: 'refused' })).to.equal(1);
      expect(sampleValue(samples, 'rally_rate_limit_rejections_total', { limit: 'sign_limit' })).to.equal(1);
      expect(sampleValue(samples, 'rally_websocket_connections')).to.equal(1);
      expect(sampleValue(samples, 'rally_db_pool_connections', { state: 'max' })).to.equal(20);
      expect(sampleValue(samples, 'rally_db_pool_connections', { state: 'waiting' })).to.equal(0);
      expect(sampleValue(samples, 'rally_dependency_up', { dependency: 'database' })).to.equal(1);
      expect(sampleValue(samples, 'rally_dependency_up', { dependency: 'temporal' })).to.equal(1);
      expect(sampleValue(samples, 'process_resident_memory_bytes')).to.be.greaterThan(10_000_000);
    });

    it("shows the worker's deliveries and attempts, the outbox lag and Temporal's own worker metrics on one port", async () => {
      // The second attempt's outcome is recorded right after the receiver answered it. This worker's
      // dispatcher serves the whole test database, so deliveries that earlier test files left waiting
      // may add their attempts: the counts are at least this test's own.
      const samples = await eventually(
        async () => {
          const scraped = parseExposition(await (await scrape(workerMetricsUrl)).text());
          return (sampleValue(scraped, 'rally_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0) >= 1 ? scraped : undefined;
        },
        30_000,
        'the delivery counted',
      );
      expect(sampleValue(samples, 'rally_webhook_delivery_attempts_total', { outcome: 'retrying' })).to.be.at.least(1);
      expect(sampleValue(samples, 'rally_webhook_delivery_attempts_total', { outcome: 'delivered' })).to.be.at.least(1);
      // A delivery delivered at its second attempt adds 2 to the sum of attempts.
      expect(sampleValue(samples, 'rally_webhook_delivery_attempts_sum', { outcome: 'delivered' })).to.be.at.least(2);
      expect(sampleValue(samples, 'rally_webhook_attempt_duration_seconds_count')).to.be.at.least(2);
      const lag = sampleValue(samples, 'rally_outbox_lag_seconds')!;
      expect(lag).to.be.at.least(0).and.lessThan(60);
      // Gauges of the whole database, which earlier test files share: compared with what it holds.
      const backlog = await testEnvironment().db.one(sql.type(z.object({ waiting: z.number(), failing: z.number() }))`
        SELECT (SELECT count(*) FROM webhook_deliveries WHERE started_at IS NULL)::int AS waiting,
          (SELECT count(*) FROM webhook_endpoints WHERE is_active AND failing_since < now() - interval '15 minutes')::int AS failing
      `);
      expect(sampleValue(samples, 'rally_webhook_deliveries_waiting')).to.equal(backlog.waiting);
      expect(sampleValue(samples, 'rally_webhook_endpoints_failing')).to.equal(backlog.failing);
      expect(sampleValue(samples, 'rally_db_pool_connections', { state: 'max' })).to.equal(10);
      const temporal = samples.filter((sample) => sample.name.startsWith('temporal_'));
      expect(temporal.length, 'Temporal Core series').to.be.greaterThan(10);
      // The first attempt left from the dispatcher, with no activity; the second ran in the retry workflow's activity.
      expect(sampleValue(samples, 'temporal_local_activity_execution_latency_count', { activity_type: 'sendDeliveryBatch' })).to.equal(undefined);
      expect(sampleValue(samples, 'temporal_activity_execution_latency_count', { activity_type: 'attemptDelivery' })).to.be.at.least(1);
    });
  });

  // The first attempt leaves from the dispatcher without a workflow (issue 45); the failed attempt is handed to a
  // webhookDelivery workflow for the second, started in the same trace.
  describe('traces', () => {
    it('link the sign request via the outbox to the first attempt, and to the retry workflow that makes the second', async () => {
      const spansOfSign = (): ReceivedSpan[] => {
        const server = otlp
          .spans()
          .find(
            (span) =>
              span.service === 'rally-api' &&
              span.kind === 2 &&
              span.attributes['http.route'] === '/v1/petitions/:id/signatures' &&
              span.attributes['rally.request_id'] === deliveryRequestId,
          );
        return server ? otlp.spans().filter((span) => span.traceId === server.traceId) : [];
      };
      const isAttempt = (span: ReceivedSpan) => span.service === 'rally-worker' && span.kind === 3 && String(span.attributes['url.full']).endsWith('/hook');
      const trace = await eventually(
        async () => {
          const spans = spansOfSign();
          // A workflow's span is exported when it ends, after the last attempt.
          const ended = spans.some((span) => span.name === 'RunWorkflow:webhookDelivery');
          return spans.filter(isAttempt).length >= 2 && ended ? spans : undefined;
        },
        30_000,
        'both delivery attempts in the trace of the sign request',
      );
      expect([...otlp.encodings()].sort()).to.deep.equal(['json', 'protobuf']);
      const names = trace.map((span) => `${span.service} ${span.name}`);
      expect(names).to.include.members([
        'rally-api POST /v1/petitions/:id/signatures',
        'rally-worker StartWorkflow:webhookDelivery',
        'rally-worker RunWorkflow:webhookDelivery',
        'rally-worker StartActivity:attemptDelivery',
        'rally-worker RunActivity:attemptDelivery',
      ]);
      expect(
        names.filter((name) => name.includes('webhookDeliveryBatch')),
        'no batch workflow',
      ).to.deep.equal([]);
      // Every span but the request's own hangs from another span of the same trace.
      const byId = new Map(trace.map((span) => [span.spanId, span]));
      const roots = trace.filter((span) => !byId.has(span.parentSpanId));
      expect(roots.map((span) => span.name)).to.deep.equal(['POST /v1/petitions/:id/signatures']);
      const ancestry = (span: ReceivedSpan): string[] => {
        const names: string[] = [];
        for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) names.push(parent.name);
        return names;
      };
      // The first attempt under no workflow at all, the second inside the retry workflow's activity.
      const attemptsUnder = trace.filter(isAttempt).map((span) => ancestry(span).find((name) => name.includes('Workflow:')) ?? 'no workflow');
      expect(attemptsUnder.sort()).to.deep.equal(['RunWorkflow:webhookDelivery', 'no workflow']);
      const retry = trace.find((span) => span.name === 'RunWorkflow:webhookDelivery')!;
      expect(ancestry(retry)).to.include('StartWorkflow:webhookDelivery');
    });
  });

  describe('Temporal Web UI', () => {
    it('shows a memo naming the petition and the endpoint host on the retry workflow, findable by business id and delivery outcome', async () => {
      const { client } = testEnvironment().temporal;
      const summary = `Webhook signature.created for "Plant trees along the river" to ${new URL(receiver.url('/hook')).host}`;
      const retry = client.workflow.getHandle(deliveryId);
      await retry.result();
      const delivery = await retry.describe();
      expect(delivery.type).to.equal('webhookDelivery');
      expect(delivery.memo?.summary).to.equal(summary);
      expect(delivery.typedSearchAttributes.get(RallyWebhookEndpointId)).to.equal(endpointId);
      expect(delivery.typedSearchAttributes.get(RallyPetitionId)).to.equal(petitionId);
      expect(delivery.typedSearchAttributes.get(RallyWebhookDeliveryId)).to.deep.equal([deliveryId]);
      expect(delivery.typedSearchAttributes.get(RallyDeliveryOutcome)).to.equal('delivered');
      const petition = await client.workflow.getHandle(`petition-${petitionId}`).describe();
      expect(petition.memo?.summary).to.equal('Petition "Plant trees along the river"');

      // The query docs/operations/observability.md gives for one delivery finds its retry workflow, and only that:
      // its first attempt went out without one.
      const byDelivery = await eventually(
        async () => {
          const found: string[] = [];
          for await (const execution of client.workflow.list({ query: `RallyWebhookDeliveryId = "${deliveryId}"` })) found.push(execution.type);
          return found.length > 0 ? found : undefined;
        },
        30_000,
        'the list query finding the retry workflow',
      );
      expect(byDelivery).to.deep.equal(['webhookDelivery']);
      await captureHistory('webhook-delivery-retry-handed-over', retry);

      const found = await eventually(
        async () => {
          const types: string[] = [];
          for await (const execution of client.workflow.list({ query: `RallyPetitionId = "${petitionId}"` })) types.push(execution.type);
          return ['webhookDelivery', 'petitionLifecycle'].every((type) => types.includes(type)) ? types : undefined;
        },
        30_000,
        "the list query finding the petition's workflows",
      );
      expect(found).to.include.members(['webhookDelivery', 'petitionLifecycle']);
      const byOutcome = async (outcome: string) => {
        const ids: string[] = [];
        for await (const execution of client.workflow.list({ query: `RallyWebhookEndpointId = "${endpointId}" AND RallyDeliveryOutcome = "${outcome}"` }))
          ids.push(execution.workflowId);
        return ids;
      };
      expect(
        await eventually(async () => ((await byOutcome('delivered')).length > 0 ? byOutcome('delivered') : undefined), 30_000, 'the outcome searchable'),
      ).to.deep.equal([deliveryId]);
      expect(await byOutcome('failed')).to.deep.equal([]);
    });
  });

  describe('logs', () => {
    const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

    it('are JSON lines; requests carry request_id and trace_id, activities workflow_id, run_id, activity and attempt', async () => {
      for (const [process, text] of Object.entries(logs)) {
        for (const line of lines(text)) expect(() => JSON.parse(line), `${process}: ${line}`).to.not.throw();
      }
      const apiLines = lines(logs.api).map((line) => JSON.parse(line));
      const signLine = apiLines.find(
        (line) => line.message === 'request' && line.route === '/v1/petitions/:id/signatures' && line.request_id === deliveryRequestId,
      );
      expect(signLine, 'the sign request logged').to.not.equal(undefined);
      expect(signLine.trace_id).to.match(/^[0-9a-f]{32}$/);
      const workerLines = await eventually(
        async () => {
          const parsed = lines(logs.worker).map((line) => JSON.parse(line));
          return parsed.some((line) => line.message === 'webhook attempt' && line.delivery_attempt === 2) ? parsed : undefined;
        },
        30_000,
        'the second attempt logged',
      );
      const activityLines = workerLines.filter((line) => line.activity === 'attemptDelivery');
      for (const line of activityLines) {
        expect(line.workflow_id, JSON.stringify(line)).to.be.a('string');
        expect(line.run_id, JSON.stringify(line)).to.be.a('string');
        expect(line.attempt, JSON.stringify(line)).to.be.a('number');
      }
      // The first attempt from the dispatcher, outside any workflow; the second in the retry workflow (id = the
      // delivery id): `attempt` is the activity's own first try, `delivery_attempt` counts over the delivery's life.
      const written = workerLines.filter((line) => line.message === 'webhook attempt' && line.delivery_id === deliveryId);
      expect(written.map((line) => [line.activity ?? null, line.attempt ?? null, line.delivery_attempt, line.outcome])).to.deep.equal([
        [null, null, 1, 'retrying'],
        ['attemptDelivery', 1, 2, 'delivered'],
      ]);
      expect(written[0].workflow_id).to.equal(undefined);
      expect(written[1].workflow_id).to.equal(deliveryId);
      // Both lines also name the trace of the sign request.
      for (const line of written) expect(line.trace_id, JSON.stringify(line)).to.equal(signLine.trace_id);
    });

    it('hold none of the secrets the run created', () => {
      const secrets = {
        'creator password': creator.password,
        'signer password': signer.password,
        'access token': creatorSession.accessToken,
        'refreshed access token': refreshed,
        'refresh token': signerSession.refreshToken,
        'ID token': creatorSession.idToken,
        'API key': apiKey,
        'webhook secret': webhookSecret,
        'metrics token': metricsToken,
      };
      expect(logs.api.length + logs.worker.length).to.be.greaterThan(1_000);
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret, name).to.be.a('string').with.length.greaterThan(10);
        expect(logs.api.includes(secret), `${name} in the API's logs`).to.equal(false);
        expect(logs.worker.includes(secret), `${name} in the worker's logs`).to.equal(false);
      }
    });
  });
});
