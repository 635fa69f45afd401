// The one door to Temporal: everything the API and core/ ask of workflows, as one object that
// implements every port core/ declares (core/*: PetitionWorkflows, ModerationWorkflows, …). It is
// built once per process (api/main.ts; activities build the part they need) and handed down.
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../platform/config.ts';
import { accountDeletionWorkflows } from './account-deletion.ts';
import { accountWorkflows } from './accounts.ts';
import { connectTemporal } from './client.ts';
import { exportWorkflows } from './exports.ts';
import { moderationWorkflows } from './moderation.ts';
import { decisionMakerWorkflows, petitionWorkflows } from './petitions.ts';

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
