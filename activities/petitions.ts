// What the petition lifecycle workflow does to the database. Each transition commits the status
// change and its event together; a retry after a lost reply finds the petition already moved and
// succeeds without a second event.
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { recordEvent, type Actor, type EventType } from '../core/events/record-event.ts';
import { sql } from '../db/sql.ts';
import { findPetitionById } from '../core/petitions/queries.ts';
import { toPetitionSummary } from '../core/petitions/presenter.ts';

export type PetitionStatus = 'draft' | 'active' | 'closed' | 'victory' | 'under_review';
export type TransitionInput = { petitionId: string; from: PetitionStatus; to: PetitionStatus; actor: Actor; victoryMessage?: string };
export type TransitionResult = { petitionId: string; status: PetitionStatus };

const EVENT_OF: Partial<Record<PetitionStatus, EventType>> = { active: 'petition.published', closed: 'petition.closed', victory: 'petition.victory' };

const StatusRow = z.object({ status: z.enum(['draft', 'active', 'closed', 'victory', 'under_review']) });

export function createPetitionActivities({ db }: { db: DatabasePool }) {
  return {
    async transitionPetition(input: TransitionInput): Promise<TransitionResult> {
      return db.transaction(async (tx) => {
        const current = await tx.maybeOne(sql.type(StatusRow)`SELECT status FROM petitions WHERE id = ${input.petitionId} AND deleted_at IS NULL FOR UPDATE`);
        if (!current) throw ApplicationFailure.nonRetryable(`petition ${input.petitionId} does not exist`, 'PetitionNotFound');
        if (current.status === input.to) return { petitionId: input.petitionId, status: input.to };
        if (current.status !== input.from) {
          throw ApplicationFailure.nonRetryable(`the petition is ${current.status}, not ${input.from}`, 'InvalidTransition');
        }
        await tx.query(sql.typeAlias('void')`
          UPDATE petitions SET status = ${input.to}, updated_at = now(),
            published_at = CASE WHEN ${input.to} = 'active' THEN now() ELSE published_at END,
            closed_at = CASE WHEN ${input.to} IN ('closed', 'victory') THEN now() ELSE closed_at END,
            victory_message = CASE WHEN ${input.to} = 'victory' THEN ${input.victoryMessage ?? null} ELSE victory_message END
          WHERE id = ${input.petitionId}
        `);
        const petition = await findPetitionById(tx, input.petitionId);
        const type = EVENT_OF[input.to];
        if (petition && type) await recordEvent(tx, { type, actor: input.actor, petitionId: input.petitionId, data: toPetitionSummary(petition, undefined) });
        return { petitionId: input.petitionId, status: input.to };
      });
    },
  };
}

export type PetitionActivities = ReturnType<typeof createPetitionActivities>;
