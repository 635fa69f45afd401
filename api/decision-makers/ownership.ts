// What every decision-maker route shares: its dependencies and the creator-only check.
import type { Client } from '@temporalio/client';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { RallyContext } from '../http/context.ts';
import { assertThat } from '../http/problem.ts';
import { petitionOwnership } from './queries.ts';

export type DecisionMakerDependencies = { db: DatabasePool; temporal: Client; taskQueue: string; publicUrl: string };

/** The petition's creator only; 404 when there is no such petition, 403 for anyone else. */
export async function assertCreator(db: CommonQueryMethods, ctx: RallyContext, petitionId: string, options: { lock?: boolean } = {}) {
  const petition = await petitionOwnership(db, petitionId, options);
  assertThat(petition, 'not-found', `There is no petition ${petitionId}.`);
  assertThat(petition.creator_id === ctx.state.principal!.userId, 'forbidden', 'Only the creator of this petition may do this.', { code: 'not_owner' });
  return petition;
}
