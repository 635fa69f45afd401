// The outbox dispatcher, run inside every worker process: each round turns new outbox events into deliveries and notifications, batches waiting deliveries per
// endpoint and starts each batch's workflow, with nothing lost at any crash point. It wakes on NOTIFY rally_events and polls every second anyway, since a
// NOTIFY can be missed; milestone crossings are announced in rounds by a second loop, so a surge of them never delays a delivery.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { EVENTS_CHANNEL } from '../core/events/record-event.ts';
import { createNotificationListener } from '../db/notifications.ts';
import { announceMilestones, claimUnsignalledMilestones } from '../core/organizations/milestone-notifications.ts';
import { claimDeliveryBatches, dispatchEventBatch, forgetStartedBatches, unstartedBatches, type DeliveryBatch } from '../core/events/dispatch-queries.ts';
import { createEmailQueues } from './email-queues.ts';
import { withTraceCarrier } from '../platform/trace-context.ts';
import { metrics } from '../platform/metrics.ts';
import type { WorkerOrchestration } from '../orchestration/index.ts';

// Large batches: the outbox is first in, first out, so a burst must be turned into rows quickly for the
// events behind it (events nobody wants are only read past).
const EVENT_BATCH = 5_000;
// Committed events behind a transaction still running (core/events/outbox-reader.ts) are looked for
// again this soon: such a transaction usually ends within milliseconds, and the webhook goal is 1 s.
// Doubled while the same wait goes on (a long transaction elsewhere), up to the poll interval.
const HORIZON_RETRY_MS = 10;
const START_BATCH = 200;
// Deliveries claimed per round, and per batch: a batch's delivery ids are one search attribute value,
// which Temporal limits to 2 KB by default (48 ids of 36 characters, quoted, fit).
const CLAIM_LIMIT = 5_000;
const MAX_BATCH = 48;
// Concurrent start calls: enough to hide Temporal's round trip, few enough not to swamp it.
const START_CONCURRENCY = 32;
const POLL_INTERVAL_MS = 1_000;
const WEBHOOK_MAX_ATTEMPTS = 6; // 1 + 5 retries
// Milestone crossings announced per round (one transaction, and at most one fan-out workflow). A spike spread
// over thousands of petitions crosses thousands of them a minute; a round of this size costs two statements
// and one workflow start where a crossing each cost a signal, a workflow task and a local activity.
const MILESTONES_PER_ROUND = 500;

export type EventDispatcher = { stop(): Promise<void> };

type Loop = { nudge(): void; wokenByEvents: boolean; running: Promise<void> };

export type EventDispatcherOptions = { config: Config; db: DatabasePool; databaseUrl: string; workflows: WorkerOrchestration; log: Logger };

// Each round: (1) the outbox events after the dispatcher's stored position become delivery rows and
// notifications, committed with the position moved past them (core/events/dispatch-queries.ts); (2) waiting
// deliveries are claimed into batches per endpoint, within its room, committed with the batch rows; (3) each
// batch row gets its webhookDeliveryBatch workflow, inside a transaction that deletes the row only after
// Temporal accepted the workflow. Nothing is lost at any crash point: before (1) commits, the position has not
// moved; after it, the delivery rows exist; after (2), the batch rows exist; if (3) dies after a start but
// before its commit, the next round starts the same workflow id again and "already started" counts as success.
// With Temporal down, steps (1) and (2) go on and step (3) retries each round. NOTIFY rally_events comes from a
// delivery that finished and freed room, a replay, or an API process's batch of signatures.
export async function startEventDispatcher(options: EventDispatcherOptions): Promise<EventDispatcher> {
  const { config, db, log } = options;
  const listener = await createNotificationListener(options.databaseUrl, log);
  const loops: Loop[] = [];
  const nudge = () => {
    for (const loop of loops) if (loop.wokenByEvents) loop.nudge();
  };
  await listener.listen(EVENTS_CHANNEL, nudge);
  listener.onReconnect(nudge);

  const input = (batch: DeliveryBatch) => ({
    batchId: batch.id,
    endpointId: batch.endpoint_id,
    deliveryIds: batch.delivery_ids,
    timeoutMs: config.webhookTimeoutMs,
    retryInitialMs: config.webhookRetryInitialMs,
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  });
  // The start calls run while batch rows are locked (orchestration/ gives them a deadline).
  // Started inside the trace of the request that wrote the first event, so the delivery joins that trace.
  async function start(batch: DeliveryBatch): Promise<void> {
    await withTraceCarrier(batch.trace_context, () => options.workflows.startDeliveryBatch(batch, input(batch)));
  }

  // (2) and (3): returns whether either step left work for another round.
  async function startDeliveries(): Promise<boolean> {
    const ceiling = config.webhooks.endpointConcurrency;
    const claimed = await db.transaction((tx) => claimDeliveryBatches(tx, { ceiling, maxBatch: MAX_BATCH, limit: CLAIM_LIMIT }));
    // A batch Temporal refuses stays for the next round without holding up the others.
    const failures: unknown[] = [];
    const started = await db.transaction(async (tx) => {
      const batches = await unstartedBatches(tx, START_BATCH);
      const accepted: string[] = [];
      for (let index = 0; index < batches.length; index += START_CONCURRENCY) {
        const slice = batches.slice(index, index + START_CONCURRENCY);
        const outcomes = await Promise.allSettled(slice.map(start));
        outcomes.forEach((outcome, at) => (outcome.status === 'fulfilled' ? accepted.push(slice[at]!.id) : failures.push(outcome.reason)));
      }
      if (accepted.length > 0) await forgetStartedBatches(tx, accepted);
      return batches.length;
    });
    if (failures.length > 0) throw failures[0];
    return claimed === CLAIM_LIMIT || started === START_BATCH;
  }

  // (4) Pending emails wake the workflows that mail them (worker/email-queues.ts).
  const queueEmails = createEmailQueues({ db, workflows: options.workflows, config });

  // (5) Milestone crossings are announced in rounds, in a loop of their own so that a backlog never
  // holds up a delivery start (core/organizations/milestone-notifications.ts). The fan-out starts inside
  // the round's transaction: if Temporal refuses it, the round rolls back and is claimed again. Returns
  // whether more are waiting.
  async function announceMilestoneRound(): Promise<boolean> {
    const claimed = await db.transaction(async (tx) => {
      const crossings = await claimUnsignalledMilestones(tx, MILESTONES_PER_ROUND);
      const listened = await announceMilestones(tx, crossings);
      if (listened.length > 0) await options.workflows.tellMilestoneSigners(listened);
      return crossings.length;
    });
    return claimed === MILESTONES_PER_ROUND;
  }

  let stopped = false;
  let horizonRetryMs = HORIZON_RETRY_MS;
  loops.push(
    createLoop('dispatch', async () => {
      const dispatched = await db.transaction((tx) => dispatchEventBatch(tx, EVENT_BATCH));
      const moreEmails = await queueEmails();
      // Last: a batch Temporal keeps refusing fails the round after everything else was done.
      const more = await startDeliveries();
      horizonRetryMs = dispatched.waiting && dispatched.read === 0 ? Math.min(horizonRetryMs * 2, POLL_INTERVAL_MS) : HORIZON_RETRY_MS;
      if (dispatched.waiting && !moreEmails && !more) await sleep(horizonRetryMs);
      return dispatched.read === EVENT_BATCH || dispatched.waiting || moreEmails || more;
    }),
    // Not woken by each NOTIFY: a signing spike sends dozens a second and crosses a milestone rarely,
    // and each wake-up cost two transactions. A crossing waits for the next poll, at most a second.
    createLoop('milestone announcements', announceMilestoneRound, { wokenByEvents: false }),
  );

  /** Runs `step` again at once while it says more is waiting or a NOTIFY came meanwhile, else after the poll interval. */
  function createLoop(name: string, step: () => Promise<boolean>, { wokenByEvents = true } = {}): Loop {
    let woken = false;
    let wake: (() => void) | undefined;
    let lastError: string | undefined;
    const run = async () => {
      while (!stopped) {
        woken = false;
        let again = false;
        try {
          again = (await step()) || woken;
          if (lastError) log.info(`${name} going again`);
          lastError = undefined;
        } catch (error) {
          // Logged once per distinct failure, not once per second while Temporal or the database is down.
          metrics.dispatchFailures.inc();
          const message = error instanceof Error ? error.message : String(error);
          if (message !== lastError) log.warn(`${name} round failed; retrying`, { error: message });
          lastError = message;
        }
        if (again || stopped) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_INTERVAL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    };
    return {
      nudge: () => {
        woken = true;
        wake?.();
      },
      wokenByEvents,
      running: run(),
    };
  }

  log.info('event dispatcher started', { endpoint_concurrency_ceiling: config.webhooks.endpointConcurrency });
  return {
    async stop() {
      stopped = true;
      for (const loop of loops) loop.nudge();
      await Promise.all(loops.map((loop) => loop.running));
      await listener.close();
    },
  };
}
