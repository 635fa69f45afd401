// Organization keys outlive the admin who created them (integrations must not break with staff turnover), but that person may still hold their secrets: when
// they leave or stop being an admin, the owner and admins are told which keys to rotate (in-app, and by email with preferences applied) and the audit log
// records it, both in the membership change's transaction, so the warning exists exactly when the change does.
import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { notifyUsers } from '../notifications/create.ts';
import { nameInMail } from '../users/name-in-mail.ts';

const KeyLeftBehind = z.object({ id: z.string(), name: z.string(), display_prefix: z.string() });
const Names = z.object({ organization: z.string(), person: z.string() });

export type Departure = {
  orgId: string;
  userId: string;
  /** left: they removed themselves; removed: an admin removed them; demoted: they are a member now. */
  reason: 'left' | 'removed' | 'demoted';
  audit: AuditContext;
};

const HEADLINE = { left: 'left', removed: 'was removed from', demoted: 'is no longer an admin of' } as const;

/** Call after the membership change, in its transaction. Nothing happens when the person created no live key. */
export async function warnOfKeysLeftBehind(tx: CommonQueryMethods, departure: Departure): Promise<void> {
  const { orgId, userId } = departure;
  // Live keys only: revoked ones and rotated ones past their grace window need no rotation.
  const keys = await tx.any(sql.type(KeyLeftBehind)`
    SELECT k.id, k.name, k.display_prefix
    FROM api_keys k JOIN organizations o ON o.service_user_id = k.user_id
    WHERE o.id = ${orgId} AND k.created_by = ${userId} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
    ORDER BY k.created_at, k.id
  `);
  if (keys.length === 0) return;
  const names = await tx.one(sql.type(Names)`
    SELECT o.name AS organization, u.display_name AS person FROM organizations o, users u WHERE o.id = ${orgId} AND u.id = ${userId}
  `);
  const admins = await tx.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM organization_members WHERE org_id = ${orgId} AND role IN ('owner', 'admin') AND user_id <> ${userId}
  `);
  // Names and display prefixes only: enough to find each key in the list, nothing of its secret.
  const listed = keys.map((key) => ({ id: key.id, name: key.name, prefix: key.display_prefix }));
  const person = nameInMail(names.person, 'A member');
  const title = `${person} ${HEADLINE[departure.reason]} ${names.organization}: rotate the API keys they created`;
  const body = [
    `${person} created these API keys of ${names.organization}, which still work and may still be known to them:`,
    ...listed.map((key) => `- ${key.name} (${key.prefix}…)`),
    "Rotate or revoke each of them under the organization's API keys.",
  ].join('\n');
  const data = { organization_id: orgId, user_id: userId, reason: departure.reason, keys: listed };
  const occurrence = randomUUID();
  await notifyUsers(
    tx,
    admins.map((adminId) => ({
      userId: adminId,
      type: 'organization.key_creator_left',
      title,
      body,
      data,
      dedupeKey: `key-creator-left:${occurrence}`,
    })),
  );
  await recordAudit(tx, {
    context: departure.audit,
    action: 'organization.key_creator_left',
    target: { type: 'organization', id: orgId },
    before: { user_id: userId },
    after: data,
  });
}
