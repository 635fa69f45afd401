// The one door to Temporal: everything the API and core/ ask of workflows, as one object that
// implements every port core/ declares (core/*: PetitionWorkflows, ModerationWorkflows, …), and what
// the worker asks of Temporal. Built once per process (api/main.ts, worker/main.ts) and handed down.
import type { Client, ClientOptions, Connection } from '@temporalio/client';
import type { Config } from '../platform/config.ts';
import { accountDeletionWorkflows } from './account-deletion.ts';
import { accountWorkflows } from './accounts.ts';
import { clientOn, connectTemporal } from './client.ts';
import { emailBatchWorkflows } from './email-batches.ts';
import { exportWorkflows } from './exports.ts';
import { moderationWorkflows } from './moderation.ts';
import { decisionMakerWorkflows, milestoneSignerWorkflows, petitionWorkflows } from './petitions.ts';
import { scheduleWorkflows } from './schedules.ts';
import { webhookDeliveryWorkflows } from './webhook-deliveries.ts';

export function createOrchestration(temporal: { connection: Connection; client: Client; taskQueue: string }) {
  return {
    ...petitionWorkflows(temporal),
    ...decisionMakerWorkflows(temporal),
    ...moderationWorkflows(temporal),
    ...accountWorkflows(temporal),
    ...exportWorkflows(temporal),
    ...accountDeletionWorkflows(temporal),
    /** Health checks: resolves when the Temporal frontend answers. */
    ping: () => temporal.connection.healthService.check({}),
    close: () => temporal.connection.close(),
  };
}

export type Orchestration = ReturnType<typeof createOrchestration>;

export async function connectOrchestration(settings: Config['temporal']): Promise<Orchestration> {
  return createOrchestration({ ...(await connectTemporal(settings)), taskQueue: settings.taskQueue });
}

/**
 * The worker's part, on the connection it polls with (so the dispatcher's batches start eagerly): its
 * schedules, the outbox dispatcher's starts and signals, and the petition transitions of its activities.
 */
export function createWorkerOrchestration(connection: ClientOptions['connection'], settings: Config['temporal']) {
  const temporal = { client: clientOn(connection, settings), taskQueue: settings.taskQueue };
  return {
    ...scheduleWorkflows(temporal),
    ...webhookDeliveryWorkflows(temporal),
    ...emailBatchWorkflows(temporal),
    ...milestoneSignerWorkflows(temporal),
    ...petitionWorkflows(temporal),
  };
}

export type WorkerOrchestration = ReturnType<typeof createWorkerOrchestration>;
