// Moving a petition from one status to the next: the status change and its event commit together. Repeating a transition that already happened answers success
// without a second event, so the workflow's activity retries are safe. Which transitions exist is the table's (transitions.ts), and when is the workflow's to
// decide (workflows/petition-lifecycle.ts); this refuses a move the table does not hold and a petition that is not where it is expected.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Conflict, NotFound } from '../errors/domain-error.ts';
import { recordEvent } from '../events/record-event.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { PETITION_STATUSES, type EventType, type PetitionStatus } from '../vocabulary.ts';
import { toPetitionSummary } from './presenter.ts';
import { findPetitionById } from './queries.ts';
import { isTerminal, isTransition, type TransitionInput, type TransitionResult } from './transitions.ts';

const EVENT_OF: Partial<Record<PetitionStatus, EventType>> = { active: 'petition.published', closed: 'petition.closed', victory: 'petition.victory' };

const StatusRow = z.object({ status: z.enum(PETITION_STATUSES) });

export async function transitionPetition(db: DatabasePool, input: TransitionInput): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await tx.maybeOne(sql.type(StatusRow)`SELECT status FROM petitions WHERE id = ${input.petitionId} AND deleted_at IS NULL FOR UPDATE`);
    if (!current) throw new NotFound(`petition ${input.petitionId} does not exist`, { code: 'petition_not_found' });
    if (!isTransition(input.from, input.to)) throw new Conflict(`no event moves a petition from ${input.from} to ${input.to}`, { code: 'invalid_transition' });
    if (current.status === input.to) return { petitionId: input.petitionId, status: input.to };
    if (current.status !== input.from) throw new Conflict(`the petition is ${current.status}, not ${input.from}`, { code: 'invalid_transition' });
    await tx.query(sql.typeAlias('void')`
      UPDATE petitions SET status = ${input.to}, updated_at = now(),
        published_at = CASE WHEN ${input.to} = 'active' THEN now() ELSE published_at END,
        closed_at = CASE WHEN ${isTerminal(input.to)} THEN now() ELSE closed_at END,
        victory_message = CASE WHEN ${input.to} = 'victory' THEN ${input.victoryMessage ?? null} ELSE victory_message END
      WHERE id = ${input.petitionId}
    `);
    const petition = await findPetitionById(tx, input.petitionId);
    const type = EVENT_OF[input.to];
    if (petition && type) await recordEvent(tx, { type, actor: input.actor, petitionId: input.petitionId, data: toPetitionSummary(petition, undefined) });
    if (input.audit) {
      await recordAudit(tx, {
        context: input.audit.context,
        action: input.audit.action,
        target: { type: 'petition', id: input.petitionId },
        before: { status: current.status },
        after: { status: input.to },
      });
    }
    return { petitionId: input.petitionId, status: input.to };
  });
}
