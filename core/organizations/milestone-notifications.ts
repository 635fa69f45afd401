// A milestone crossing is announced by the outbox dispatcher in rounds (worker/event-dispatcher.ts): the organization's owner and admins are told in the
// round's transaction (the creator already is, through the outbox), and the signers who opted in hear of it through one fan-out workflow per round. Before
// that, each crossing was a signal to the petition's lifecycle workflow, whose handler remains for the histories that hold one.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { notifyUsers, type SignerNotice } from '../notifications/create.ts';
import { milestoneAdmins, milestoneListeningSigners } from '../notifications/milestone-audience.ts';

export const milestoneDedupeKey = (petitionId: string, threshold: number) => `milestone:${petitionId}:${threshold}`;

export function milestoneWords(title: string, threshold: number) {
  return { title: `“${title}” reached ${threshold.toLocaleString('en-US')} signatures`, body: 'Share it again to keep the momentum going.' };
}

export async function notifyOrganizationAdminsOfMilestone(db: CommonQueryMethods, petitionId: string, threshold: number): Promise<number> {
  const petition = await db.maybeOne(sql.type(z.object({ title: z.string(), creator_id: z.string(), org_id: z.string().nullable() }))`
    SELECT title, creator_id, org_id FROM petitions WHERE id = ${petitionId} AND deleted_at IS NULL
  `);
  if (!petition?.org_id) return 0;
  const admins = await db.anyFirst(sql.type(z.object({ user_id: z.string() }))`${milestoneAdmins(petition.org_id, petition.creator_id)}`);
  return notifyUsers(
    db,
    admins.map((userId) => ({
      userId,
      type: 'petition.milestone',
      ...milestoneWords(petition.title, threshold),
      data: { petition_id: petitionId, threshold },
      dedupeKey: milestoneDedupeKey(petitionId, threshold),
    })),
  );
}

/** A crossing as the round sees it. */
export type ClaimedMilestone = { petition_id: string; threshold: number; title: string };

/**
 * Crossings not yet announced, oldest first; locked for the caller's transaction, skipping rows another worker holds, so that two
 * workers never announce the same crossing.
 */
export function claimUnsignalledMilestones(tx: DatabaseTransactionConnection, limit: number): Promise<readonly ClaimedMilestone[]> {
  return tx.any(sql.type(z.object({ petition_id: z.string(), threshold: z.number(), title: z.string() }))`
    SELECT m.petition_id, m.threshold, p.title
    FROM petition_milestones m JOIN petitions p ON p.id = m.petition_id
    WHERE m.signalled_at IS NULL
    ORDER BY m.reached_at
    LIMIT ${limit}
    FOR UPDATE OF m SKIP LOCKED
  `);
}

/** The claimed crossings as a relation `c(petition_id, threshold)`, for a statement over the whole round. */
const roundOf = (crossings: readonly ClaimedMilestone[]) => sql.fragment`
  unnest(${sql.array(
    crossings.map((crossing) => crossing.petition_id),
    'uuid',
  )}, ${sql.array(
    crossings.map((crossing) => crossing.threshold),
    'int4',
  )}) AS c(petition_id, threshold)
`;

/**
 * Announces a round of claimed crossings in the caller's transaction: tells each petition's organization owner and admins (two
 * statements for the round), marks every crossing announced, and answers what the signers who opted in are to be told, for the
 * crossings that have any; the caller hands those to one fan-out workflow before it commits. Repeating a round tells nobody twice
 * (the dedupe key).
 */
export async function announceMilestones(tx: DatabaseTransactionConnection, crossings: readonly ClaimedMilestone[]): Promise<SignerNotice[]> {
  if (crossings.length === 0) return [];
  const admins = await tx.any(sql.type(z.object({ petition_id: z.string(), threshold: z.number(), title: z.string(), user_id: z.string() }))`
    SELECT c.petition_id, c.threshold, p.title, a.user_id
    FROM ${roundOf(crossings)}
    JOIN petitions p ON p.id = c.petition_id AND p.deleted_at IS NULL AND p.org_id IS NOT NULL
    CROSS JOIN LATERAL (${milestoneAdmins(sql.fragment`p.org_id`, sql.fragment`p.creator_id`)}) a
  `);
  await notifyUsers(
    tx,
    admins.map((row) => ({
      userId: row.user_id,
      type: 'petition.milestone',
      ...milestoneWords(row.title, row.threshold),
      data: { petition_id: row.petition_id, threshold: row.threshold },
      dedupeKey: milestoneDedupeKey(row.petition_id, row.threshold),
    })),
  );
  const announced = await tx.any(sql.type(z.object({ petition_id: z.string(), threshold: z.number(), listened: z.boolean() }))`
    UPDATE petition_milestones m SET signalled_at = now()
    FROM ${roundOf(crossings)}
    JOIN petitions p ON p.id = c.petition_id
    WHERE m.petition_id = c.petition_id AND m.threshold = c.threshold
    RETURNING m.petition_id, m.threshold,
      p.deleted_at IS NULL AND EXISTS (${milestoneListeningSigners(sql.fragment`p.id`, sql.fragment`p.creator_id`)}) AS listened
  `);
  const titles = new Map(crossings.map((crossing) => [milestoneDedupeKey(crossing.petition_id, crossing.threshold), crossing.title]));
  return announced
    .filter((row) => row.listened)
    .map((row) => signerNotice(row.petition_id, row.threshold, titles.get(milestoneDedupeKey(row.petition_id, row.threshold))!));
}

/** What the signers who opted in to petition.milestone are told of a crossing. */
function signerNotice(petitionId: string, threshold: number, title: string): SignerNotice {
  return {
    petitionId,
    type: 'petition.milestone',
    optedInOnly: true,
    title: `“${title}” reached ${threshold.toLocaleString('en-US')} signatures`,
    body: 'A petition you signed keeps growing. Share it again!',
    data: { petition_id: petitionId, threshold },
    dedupeKey: milestoneDedupeKey(petitionId, threshold),
  };
}
