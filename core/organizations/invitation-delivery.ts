// What the invitation workflow's activities read and write: the invitation as its emails show it,
// and the marks that make each step happen once (token issued and sent, reminded, expired).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { afterCommitOf } from '../../db/commit-barrier.ts';
import { sql } from '../../db/sql.ts';

/** The commit barrier (db/commit-barrier.ts) between recording an invitation and emailing it. */
export const organizationInvitationBarrier = (invitationId: string) => `organization-invitation:${invitationId}`;

export const InvitationForEmail = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  org_name: z.string(),
  expires_at: z.string(),
  sent_at: z.string().nullable(),
  reminded_at: z.string().nullable(),
  accepted_at: z.string().nullable(),
  expired_at: z.string().nullable(),
});
export type InvitationForEmail = z.infer<typeof InvitationForEmail>;

/** The invitation as its emails show it, once the request that recorded it has committed. */
export async function findInvitationForEmail(db: DatabasePool, invitationId: string) {
  await afterCommitOf(db, organizationInvitationBarrier(invitationId));
  return db.maybeOne(sql.type(InvitationForEmail)`
    SELECT i.id, i.email, i.role, o.name AS org_name, i.expires_at, i.sent_at, i.reminded_at, i.accepted_at, i.expired_at
    FROM organization_invitations i JOIN organizations o ON o.id = i.org_id
    WHERE i.id = ${invitationId}
  `);
}

/** Stores the hash of a new token, unless the invitation was already sent (a retry keeps the first). */
export async function storeInvitationToken(db: CommonQueryMethods, invitationId: string, tokenHash: Buffer): Promise<void> {
  await db.query(
    sql.typeAlias('void')`UPDATE organization_invitations SET token_hash = ${sql.binary(tokenHash)} WHERE id = ${invitationId} AND sent_at IS NULL`,
  );
}

export async function markInvitationSent(db: CommonQueryMethods, invitationId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE organization_invitations SET sent_at = now() WHERE id = ${invitationId}`);
}

export async function markInvitationReminded(db: CommonQueryMethods, invitationId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE organization_invitations SET reminded_at = now() WHERE id = ${invitationId}`);
}

/** Marks the invitation expired; false when it was accepted first (or is gone). */
export async function expireInvitation(db: CommonQueryMethods, invitationId: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE organization_invitations SET expired_at = now()
    WHERE id = ${invitationId} AND accepted_at IS NULL AND expired_at IS NULL
    RETURNING id
  `);
  return row !== null;
}
