// Crashes under load: while people sign one petition and its webhook events flow to a receiver, the worker, the API and the Temporal server are each killed
// with SIGKILL and restarted, as a supervisor would. Afterwards nothing acknowledged is lost, the count matches the rows, every event arrived (a duplicate only
// under its own X-Rally-Delivery-Id), every milestone fired once, and deliveries failing before a kill were retried after the restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { petitionWorkflowId } from '../../workflows/index.ts';
import { clusterControl, killableTemporal, type KillableTemporal } from '../support/cluster-control.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startSigningLoad, type SigningLoad } from '../support/signing-load.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { storedSigningState } from '../support/signing-state.ts';

// Under `npm test` Temporal is a dev server of the test's own, keeping its state in a SQLite file as `npm
// start`'s does; under `npm run test:cluster` it is the cluster's real server on PostgreSQL (restarted by the
// cluster's supervisor), and PostgreSQL itself is then restarted with `pg_ctl restart -m fast`
// (test/support/cluster-control.ts).
const HOOK = '/crash';
const running = (process: RallyProcess) => process.child.exitCode === null && process.child.signalCode === null;
const deliveryId = (request: ReceivedRequest) => String(request.headers['x-rally-delivery-id']);

describe('crashes under load', function () {
  this.timeout(420_000);
  let directory: string;
  const cluster = clusterControl();
  const endedOnTheirOwn: string[] = [];
  let temporal: KillableTemporal;
  let env: Record<string, string>;
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;

  before(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'rally-crash-'));
    temporal = await killableTemporal(cluster, directory);
    receiver = await startWebhookReceiver();
    env = {
      ...SHORT_WINDOWS,
      PORT: String(await freePort()),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      RALLY_TASK_QUEUE: uniqueTaskQueue('crash'),
      // Attempts 4 s, 8 s, 16 s… apart, about two minutes from first to last: a delivery that fails
      // while the receiver answers 500 across a kill and a restart (a minute or more on a loaded
      // machine) still has attempts left when it answers 200 again.
      RALLY_WEBHOOK_RETRY_INITIAL: '4s',
      RALLY_WEBHOOK_DEACTIVATE_AFTER: '1h',
      RALLY_WEBHOOK_ENDPOINT_CONCURRENCY: '100',
    };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await temporal?.stop();
    await receiver?.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** Restarts whatever is not running, as a process supervisor would. */
  async function superviseRestarts(): Promise<void> {
    if (!running(api)) {
      notKilledByUs(api, 'API');
      api = await startApi(env);
    }
    if (!running(worker)) {
      notKilledByUs(worker, 'worker');
      worker = await startWorker(env);
    }
  }

  /** A process that ended on its own (not a kill of this test): what it said last, for the failure's story. */
  function notKilledByUs(process: RallyProcess, name: string): void {
    if (process.child.signalCode === 'SIGKILL') return;
    const how = process.child.signalCode ?? `exit code ${process.child.exitCode}`;
    endedOnTheirOwn.push(`${name}: ${how}`);
    globalThis.process.stderr.write(`      (the ${name} ended on its own, ${how}; its last output:\n${process.output().slice(-3_000)})\n`);
  }

  /** Restarts whatever ends, every second, until the returned function is called: a supervisor across a dependency's restart. */
  function superviseContinuously(): () => Promise<void> {
    let current = Promise.resolve();
    const timer = setInterval(() => {
      current = current.then(superviseRestarts);
    }, 1_000);
    return async () => {
      clearInterval(timer);
      await current;
    };
  }

  /**
   * Makes the receiver fail, kills with `kill`, restarts with `restart`, and waits until a delivery
   * that failed before the kill is attempted again after the restart; then lets deliveries through.
   */
  async function killWhileFailing(kill: () => Promise<void>, restart: () => Promise<void>, load: SigningLoad): Promise<void> {
    receiver.script(HOOK, ['500']);
    const since = Date.now();
    await eventually(
      async () => (receiver.received(HOOK).filter((request) => request.receivedAt > since && request.status === 500).length >= 3 ? true : undefined),
      60_000,
      'deliveries failing before the kill',
    );
    const before = load.acknowledged.length;
    const killedAt = Date.now();
    const failedBefore = new Set(
      receiver
        .received(HOOK)
        .filter((request) => request.receivedAt <= killedAt && request.status === 500)
        .map(deliveryId),
    );
    await kill();
    await restart();
    const restartedAt = Date.now();
    const retried = await eventually(
      async () => receiver.received(HOOK).find((request) => request.receivedAt > restartedAt && failedBefore.has(deliveryId(request))),
      90_000,
      'a delivery that failed before the kill attempted again after the restart',
    );
    receiver.script(HOOK, ['200']);
    await eventually(
      async () => (receiver.received(HOOK).some((request) => deliveryId(request) === deliveryId(retried) && request.status === 200) ? true : undefined),
      90_000,
      'that delivery succeeding',
    );
    const state = `${load.remaining()} signers left, other answers ${JSON.stringify([...load.others])}`;
    expect(load.acknowledged.length, `signatures acknowledged across the kill (${state})`).to.be.above(before);
  }

  /** For a failure message: where the deliveries that did not arrive are stuck, in Rally and in Temporal. */
  async function explainUndelivered(state: Awaited<ReturnType<typeof storedSigningState>>): Promise<string> {
    const waiting = state.deliveries.filter((delivery) => delivery.status !== 'delivered');
    const lines = [
      `${waiting.length} of ${state.deliveries.length} deliveries not delivered (${waiting.filter((delivery) => !delivery.started).length} never started)`,
    ];
    const connection = await Connection.connect({ address: temporal.address });
    try {
      for (const delivery of waiting.filter((each) => each.started).slice(0, 3)) {
        const described = await new Client({ connection, namespace: temporal.namespace }).workflow
          .getHandle(delivery.id)
          .describe()
          .then(
            (description) => {
              const pending = description.raw.pendingActivities?.map((activity) => ({
                state: activity.state,
                attempt: activity.attempt,
                lastFailure: activity.lastFailure?.message,
              }));
              return `${description.status.name}, pending activities ${JSON.stringify(pending)}`;
            },
            (failure: Error) => failure.message,
          );
        lines.push(`${delivery.id} (${delivery.status}): ${described}`);
      }
    } finally {
      await connection.close();
    }
    return lines.join('; ');
  }

  it('loses nothing acknowledged and delivers every event once the worker, the API and Temporal were killed in turn', async () => {
    const owner = await createTestUser();
    const token = (await login(api.baseUrl, owner)).accessToken;
    const petition = await publishedPetition(api.baseUrl, token, { signatureGoal: 200 });
    const webhook = await json(
      await fetch(`${api.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ url: receiver.url(HOOK), events: ['signature.created', 'signature.milestone'] }),
      }),
    );
    expect(webhook.data?.id, JSON.stringify(webhook)).to.be.a('string');
    const load = await startSigningLoad({ baseUrl: () => api.baseUrl, petitionId: petition.id, users: 1_000, parallel: 2, pauseMs: 400 });

    try {
      // The worker dies in the middle of retries.
      await killWhileFailing(() => worker.stop('SIGKILL'), superviseRestarts, load);

      // The API dies with signing requests in flight; clients whose request got no answer retry.
      const before = load.acknowledged.length;
      await api.stop('SIGKILL');
      await superviseRestarts();
      await eventually(async () => (load.acknowledged.length > before ? true : undefined), 60_000, 'signing through the restarted API');
      for (const retry of await load.retryUnanswered()) {
        expect([201, 409], `the retried signature of ${retry.userId}`).to.include(retry.status);
      }

      // Temporal dies while deliveries wait for their next attempt on its timers.
      await killWhileFailing(
        () => temporal.kill(),
        async () => {
          await temporal.restart();
          await superviseRestarts();
        },
        load,
      );

      // On the cluster, PostgreSQL restarts (every session ended: PgBouncer's, the LISTEN connections,
      // Temporal's); meanwhile the API answers 503 and clients retry.
      if (cluster) {
        const stopSupervising = superviseContinuously();
        try {
          await killWhileFailing(() => cluster.restartPostgres(), superviseRestarts, load);
        } finally {
          await stopSupervising();
        }
        await eventually(
          async () => {
            for (const retry of await load.retryUnanswered()) {
              expect([201, 409], `the retried signature of ${retry.userId}`).to.include(retry.status);
            }
            return load.unanswered.length === 0 ? true : undefined;
          },
          60_000,
          'every signature that got no answer or a 503 retried',
        );
      }
    } finally {
      await load.stop();
    }
    expect(load.remaining(), 'signers left when the load stopped').to.be.above(0);
    expect(endedOnTheirOwn, 'processes that exited on their own (the kills aside), e.g. on the PostgreSQL restart').to.deep.equal([]);
    // A 503 tells the client to retry: only while PostgreSQL restarts (on the cluster) is one right.
    const retryable = cluster ? ['no answer', '503'] : ['no answer'];
    expect(
      [...load.others.keys()].filter((status) => !retryable.includes(status)),
      'answers other than 201 to the signing stream',
    ).to.deep.equal([]);

    let latest: Awaited<ReturnType<typeof storedSigningState>> | undefined;
    const delivered = (eventId: string) => receiver.received(HOOK).some((request) => request.status === 200 && JSON.parse(request.body).id === eventId);
    const state = await eventually(
      async () => {
        latest = await storedSigningState(petition.id, webhook.data.id);
        return latest.deliveries.every((delivery) => delivery.status === 'delivered') && latest.events.every((event) => delivered(event.id))
          ? latest
          : undefined;
      },
      180_000,
      'every event delivered',
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${await explainUndelivered(latest!)}`);
    });

    const signers = new Set(state.signerIds);
    expect(
      load.acknowledged.filter((signature) => !signers.has(signature.userId)),
      'acknowledged signatures missing',
    ).to.deep.equal([]);
    const shown = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`));
    expect(shown.data.signature_count, 'the petition count').to.equal(state.signerIds.length);
    expect(
      state.events.filter((event) => event.type === 'signature.created'),
      'one signature.created per signature',
    ).to.have.length(state.signerIds.length);

    const deliveryIdsByEvent = new Map<string, Set<string>>();
    for (const request of receiver.received(HOOK)) {
      const eventId = JSON.parse(request.body).id as string;
      deliveryIdsByEvent.set(eventId, (deliveryIdsByEvent.get(eventId) ?? new Set()).add(deliveryId(request)));
    }
    expect(
      [...deliveryIdsByEvent].filter(([, ids]) => ids.size > 1),
      'events delivered under more than one delivery id',
    ).to.deep.equal([]);

    const milestoneEvents = state.events.filter((event) => event.type === 'signature.milestone');
    const thresholds = milestoneEvents.map((event) => Number(event.threshold));
    expect(thresholds.length, 'milestones crossed').to.be.at.least(3);
    expect(new Set(thresholds).size, 'each milestone fired once').to.equal(thresholds.length);
    expect([...state.milestoneThresholds].sort((a, b) => a - b)).to.deep.equal([...thresholds].sort((a, b) => a - b));
    const claimedBy = new Set(state.milestoneSignatureIds);
    expect(
      load.acknowledged.filter((signature) => signature.milestoneReached && !claimedBy.has(signature.signatureId)),
      'answers saying milestone_reached without a milestone',
    ).to.deep.equal([]);
    const notified = await json(await fetch(`${api.baseUrl}/v1/notifications?limit=100`, { headers: bearer(token) }));
    const milestoneNotices = notified.data.filter((notification: { type: string }) => notification.type === 'petition.milestone');
    expect(milestoneNotices, 'the creator told once per milestone').to.have.length(thresholds.length);

    const connection = await Connection.connect({ address: temporal.address });
    try {
      const description = await new Client({ connection, namespace: temporal.namespace }).workflow.getHandle(petitionWorkflowId(petition.id)).describe();
      expect(description.status.name, 'the petition workflow after Temporal was killed').to.equal('RUNNING');
    } finally {
      await connection.close();
    }
  });
});
