// Milestones of an organization's petition reach the organization's owner and admins at once (the
// creator already hears through the outbox, core/notifications/from-events.ts). Made by the petition's
// lifecycle workflow when it is signalled a crossing; the dedupe key makes a repeat harmless.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { notifyUsers } from '../notifications/create.ts';
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

/**
 * Crossings not yet handed to their petition's workflow, oldest first, with the petition's status;
 * locked for the caller's transaction, skipping rows another worker holds, so that two workers never
 * signal the same crossing.
 */
export function claimUnsignalledMilestones(tx: DatabaseTransactionConnection, limit: number) {
  return tx.any(sql.type(z.object({ petition_id: z.string(), threshold: z.number(), status: z.string(), title: z.string() }))`
    SELECT m.petition_id, m.threshold, p.status, p.title
    FROM petition_milestones m JOIN petitions p ON p.id = m.petition_id
    WHERE m.signalled_at IS NULL
    ORDER BY m.reached_at
    LIMIT ${limit}
    FOR UPDATE OF m SKIP LOCKED
  `);
}

/**
 * Marks handed over, without a signal, up to `limit` crossings that nobody would hear of: no
 * organization admin to tell and no signer listening. Their workflow would only have found that out
 * (a workflow start, a task and a local activity each); a spike spread over thousands of petitions
 * crosses thousands of them. Rows another worker holds are skipped. Answers how many were settled.
 */
export async function settleUnheardMilestones(tx: DatabaseTransactionConnection, limit: number): Promise<number> {
  const settled = await tx.query(sql.typeAlias('void')`
    WITH unheard AS (
      SELECT m.petition_id, m.threshold
      FROM petition_milestones m JOIN petitions p ON p.id = m.petition_id
      WHERE m.signalled_at IS NULL
        AND NOT EXISTS (${milestoneAdmins(sql.fragment`p.org_id`, sql.fragment`p.creator_id`)})
        AND NOT EXISTS (${milestoneListeningSigners(sql.fragment`p.id`, sql.fragment`p.creator_id`)})
      ORDER BY m.reached_at
      LIMIT ${limit}
      FOR UPDATE OF m SKIP LOCKED
    )
    UPDATE petition_milestones m SET signalled_at = now()
    FROM unheard u WHERE m.petition_id = u.petition_id AND m.threshold = u.threshold
  `);
  return settled.rowCount;
}

export async function markMilestoneSignalled(db: CommonQueryMethods, petitionId: string, threshold: number): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE petition_milestones SET signalled_at = now() WHERE petition_id = ${petitionId} AND threshold = ${threshold}`);
}
