// How many portal invitations a petition may send. Every invitation is written to a log that removing the decision maker does not touch, so deleting and
// re-adding someone cannot refill the budget or mail the same person again. The log keeps a hash of the address, not the address, and is purged with the other
// expired rows once its week is over.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { RateLimited } from '../errors/domain-error.ts';

/** Invitations one petition may send in 24 hours, removed decision makers included. */
export const INVITATIONS_PER_PETITION_PER_DAY = 50;
/** Invitations all of one creator's petitions together may send in 24 hours. */
export const INVITATIONS_PER_CREATOR_PER_DAY = 200;
/** One address is invited to one petition at most once in this many days. */
export const DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS = 7;

// The same expression as logInvitation's, over a value instead of the column.
const addressHash = (email: string) => sql.fragment`sha256(convert_to(lower(${email}), 'UTF8'))`;
const lockPetition = (petitionId: string) => sql.fragment`pg_advisory_xact_lock(hashtextextended('decision-maker-invitations:' || ${petitionId}, 0))`;

const Usage = z.object({
  petition_count: z.number(),
  petition_retry: z.number().nullable(),
  creator_count: z.number(),
  creator_retry: z.number().nullable(),
  address_retry: z.number().nullable(),
});

/**
 * Refuses (429 with Retry-After) an invitation past any budget. Serialised per petition and per
 * creator by transaction-scoped advisory locks, so parallel adds cannot all see the last free slot.
 */
export async function assertInvitationBudget(tx: CommonQueryMethods, invitation: { petitionId: string; creatorId: string; email: string }): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    SELECT FROM pg_advisory_xact_lock(hashtextextended('decision-maker-invitations:' || ${invitation.creatorId}, 0)) AS by_creator,
                ${lockPetition(invitation.petitionId)} AS by_petition
  `);
  const usage = await tx.one(sql.type(Usage)`
    WITH petition AS (
      SELECT invited_at, email_hash FROM decision_maker_invitation_log
      WHERE petition_id = ${invitation.petitionId} AND invited_at > now() - make_interval(days => ${DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS})
    ), creator AS (
      SELECT invited_at FROM decision_maker_invitation_log WHERE creator_id = ${invitation.creatorId} AND invited_at > now() - interval '1 day'
    )
    SELECT
      (SELECT count(*)::int FROM petition WHERE invited_at > now() - interval '1 day') AS petition_count,
      (SELECT ceil(extract(epoch FROM min(invited_at) + interval '1 day' - now()))::int
       FROM petition WHERE invited_at > now() - interval '1 day') AS petition_retry,
      (SELECT count(*)::int FROM creator) AS creator_count,
      (SELECT ceil(extract(epoch FROM min(invited_at) + interval '1 day' - now()))::int FROM creator) AS creator_retry,
      (SELECT ceil(extract(epoch FROM max(invited_at) + make_interval(days => ${DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS}) - now()))::int
         FROM petition WHERE email_hash = ${addressHash(invitation.email)}) AS address_retry
  `);
  const refuse = (detail: string, code: string, retry: number | null) => new RateLimited(detail, { code, retryAfterSeconds: Math.max(1, retry ?? 1) });
  if (usage.address_retry !== null) {
    throw refuse(
      `This address was invited to this petition within the last ${DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS} days.`,
      'address_recently_invited',
      usage.address_retry,
    );
  }
  if (usage.petition_count >= INVITATIONS_PER_PETITION_PER_DAY) {
    throw refuse(
      `A petition sends at most ${INVITATIONS_PER_PETITION_PER_DAY} invitations a day, removed decision makers included.`,
      'invitation_limit',
      usage.petition_retry,
    );
  }
  if (usage.creator_count >= INVITATIONS_PER_CREATOR_PER_DAY) {
    throw refuse(`Your petitions send at most ${INVITATIONS_PER_CREATOR_PER_DAY} invitations a day together.`, 'invitation_limit', usage.creator_retry);
  }
}

/**
 * Logs the invitation of one decision maker; logging one twice changes nothing. Called when an
 * added decision maker is invited at once, and when a token is issued (invitations at publish).
 */
export function logInvitation(db: CommonQueryMethods, decisionMakerId: string) {
  return db.query(sql.typeAlias('void')`
    INSERT INTO decision_maker_invitation_log (decision_maker_id, petition_id, creator_id, email_hash)
    SELECT d.id, d.petition_id, p.creator_id, sha256(convert_to(lower(d.email), 'UTF8'))
    FROM petition_decision_makers d JOIN petitions p ON p.id = d.petition_id WHERE d.id = ${decisionMakerId}
    ON CONFLICT (decision_maker_id) DO NOTHING
  `);
}

/**
 * For the invitations sent at publish, which no request could refuse: logs the decision maker's
 * invitation unless another decision maker of the petition was invited at the same address within
 * the week (a draft may name one address twice); false then, and nothing is logged. Safe to repeat.
 */
export function claimInvitation(db: DatabasePool, decisionMakerId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const petitionId = await tx.maybeOneFirst(sql.type(z.object({ petition_id: z.string() }))`
      SELECT petition_id FROM petition_decision_makers WHERE id = ${decisionMakerId}`);
    if (!petitionId) return true;
    await tx.query(sql.typeAlias('void')`SELECT FROM ${lockPetition(petitionId)} AS by_petition`);
    const taken = await tx.exists(sql.type(z.object({}))`
      SELECT 1 FROM decision_maker_invitation_log l JOIN petition_decision_makers d ON d.id = ${decisionMakerId}
      WHERE l.petition_id = d.petition_id AND l.email_hash = sha256(convert_to(lower(d.email), 'UTF8')) AND l.decision_maker_id <> d.id
        AND l.invited_at > now() - make_interval(days => ${DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS})
    `);
    if (taken) return false;
    await logInvitation(tx, decisionMakerId);
    return true;
  });
}
