// The outbox dispatcher, run inside every worker process: each round turns new outbox events into deliveries and notifications, and sends waiting deliveries'
// first attempts in leased batches per endpoint, with nothing lost at any crash point. It wakes on NOTIFY rally_events and polls every second anyway, since a
// NOTIFY can be missed; retry hand-overs and milestone announcements run in loops of their own, so neither ever delays a first attempt.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { EVENTS_CHANNEL } from '../core/events/record-event.ts';
import { createNotificationListener } from '../db/notifications.ts';
import { announceMilestones, claimUnsignalledMilestones } from '../core/organizations/milestone-notifications.ts';
import { dispatchEventBatch } from '../core/events/dispatch-queries.ts';
import { createEmailQueues } from './email-queues.ts';
import { createFirstAttemptSender } from './first-attempts.ts';
import { metrics } from '../platform/metrics.ts';
import type { WorkerOrchestration } from '../orchestration/index.ts';
import type { WebhookActivityDependencies } from '../activities/webhooks.ts';

// Large batches: the outbox is first in, first out, so a burst must be turned into rows quickly for the
// events behind it (events nobody wants are only read past).
const EVENT_BATCH = 5_000;
// Committed events behind a transaction still running (core/events/outbox-reader.ts) are looked for
// again this soon: such a transaction usually ends within milliseconds, and the webhook goal is 1 s.
// Doubled while the same wait goes on (a long transaction elsewhere), up to the poll interval.
const HORIZON_RETRY_MS = 10;
const POLL_INTERVAL_MS = 1_000;
// Milestone crossings announced per round (one transaction, and at most one fan-out workflow). A spike spread
// over thousands of petitions crosses thousands of them a minute; a round of this size costs two statements
// and one workflow start where a crossing each cost a signal, a workflow task and a local activity.
const MILESTONES_PER_ROUND = 500;

/** `stop(graceMs)`: no more rounds, and the batches being sent get up to `graceMs` to be recorded (worker/first-attempts.ts). */
export type EventDispatcher = { stop(graceMs: number): Promise<void> };

type Loop = { nudge(): void; wokenByEvents: boolean; running: Promise<void> };

export type EventDispatcherOptions = {
  config: Config;
  db: DatabasePool;
  databaseUrl: string;
  workflows: WorkerOrchestration;
  /** The worker's webhook clients (its undici pool and destination budget), shared with the retry activities. */
  webhooks: WebhookActivityDependencies;
  log: Logger;
};

// Each round: (1) the outbox events after the dispatcher's stored position become delivery rows and
// notifications, committed with the position moved past them (core/events/dispatch-queries.ts); (2) waiting
// deliveries are claimed into batches per endpoint, within its room, committed with a lease on each batch row;
// (3) each batch is sent, and its outcomes are recorded in the transaction that deletes its row and writes the
// hand-overs of failed first attempts (worker/first-attempts.ts). Nothing is lost at any crash point: before (1)
// commits, the position has not moved; after it, the delivery rows exist; after (2), the batch rows exist, and a
// batch whose outcomes never committed is sent again, under the same delivery ids, once its lease runs out. With
// Temporal down, all three go on; only the hand-overs wait. NOTIFY rally_events comes from a batch that finished
// and freed room, a replay, or an API process's batch of signatures.
export async function startEventDispatcher(options: EventDispatcherOptions): Promise<EventDispatcher> {
  const { config, db, log } = options;
  const listener = await createNotificationListener(options.databaseUrl, log);
  const loops: Loop[] = [];
  const nudge = () => {
    for (const loop of loops) if (loop.wokenByEvents) loop.nudge();
  };
  await listener.listen(EVENTS_CHANNEL, nudge);
  listener.onReconnect(nudge);

  const firstAttempts = createFirstAttemptSender({
    config,
    db,
    webhooks: options.webhooks,
    workflows: options.workflows,
    log,
    // In this process, a finished batch wakes the dispatch round at once (other workers hear its NOTIFY).
    onBatchDone: ({ retrying }) => {
      dispatchLoop.nudge();
      if (retrying > 0) handOverLoop.nudge();
    },
  });

  // (4) Pending emails wake the workflows that mail them (worker/email-queues.ts), in a loop of their own: a wake-up
  // needs Temporal, and while it is away a failing wake-up must not hold up the first attempts.
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
  // Woken by each NOTIFY too (a paced wake-up costs nothing until its second is over), and by the dispatch
  // round that made notifications.
  const emailLoop = createLoop('email wake-ups', queueEmails);
  // Nudged by this process's batches that failed an attempt; another worker's wait for the poll.
  const handOverLoop = createLoop('webhook retry hand-over', firstAttempts.handOverRound, { wokenByEvents: false });
  const dispatchLoop = createLoop('dispatch', async () => {
    const dispatched = await db.transaction((tx) => dispatchEventBatch(tx, EVENT_BATCH));
    // The notifications it just made may want an email.
    if (dispatched.read > 0) emailLoop.nudge();
    const more = await firstAttempts.sendRound();
    horizonRetryMs = dispatched.waiting && dispatched.read === 0 ? Math.min(horizonRetryMs * 2, POLL_INTERVAL_MS) : HORIZON_RETRY_MS;
    if (dispatched.waiting && !more) await sleep(horizonRetryMs);
    return dispatched.read === EVENT_BATCH || dispatched.waiting || more;
  });
  // Not woken by each NOTIFY: a signing spike sends dozens a second and crosses a milestone rarely,
  // and each wake-up cost two transactions. A crossing waits for the next poll, at most a second.
  loops.push(dispatchLoop, handOverLoop, emailLoop, createLoop('milestone announcements', announceMilestoneRound, { wokenByEvents: false }));

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
    async stop(graceMs) {
      stopped = true;
      for (const loop of loops) loop.nudge();
      await Promise.all(loops.map((loop) => loop.running));
      await firstAttempts.drain(graceMs);
      await listener.close();
    },
  };
}
