// How a raised fraud alert is announced, whichever rule raised it (a signing-rate jump, a flagged
// share): one `fraud.suspected` event in the outbox for platform-wide webhooks (no petition_id, so a
// suspect petition's own creator is not told) and an in-app notification to every active administrator.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordEvent } from '../events/record-event.ts';
import { notifyUsers } from '../notifications/create.ts';

export type FraudAlertAnnouncement = {
  alertId: string;
  /** The `fraud.suspected` event's data, also the notification's. */
  data: Record<string, unknown>;
  title: string;
  body: string;
};

export async function announceFraudAlert(tx: CommonQueryMethods, { alertId, data, title, body }: FraudAlertAnnouncement): Promise<void> {
  await recordEvent(tx, { type: 'fraud.suspected', actor: { type: 'system', id: null }, petitionId: null, data });
  const admins = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE role = 'admin' AND suspended_at IS NULL`);
  await notifyUsers(
    tx,
    admins.map((userId) => ({ userId, type: 'moderation.fraud_suspected', data, dedupeKey: `fraud-alert:${alertId}`, title, body })),
  );
}
