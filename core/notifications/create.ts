// The one way notifications are made. Every insert goes through the recipient's preferences (an
// `in_app: false` for the type drops it) and through notifications_dedupe_unique, so a retried batch,
// a re-dispatched event or a repeated fan-out never notifies anyone twice about one thing.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { NotificationType } from '../vocabulary.ts';
import { milestoneListeningSigners } from './milestone-audience.ts';
import { nameInMail } from '../users/name-in-mail.ts';

export { NOTIFICATION_TYPES, type NotificationType } from '../vocabulary.ts';

export type NewNotification = {
  userId: string;
  type: NotificationType | (string & {});
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** What makes this notification unique for its recipient, e.g. `event:<event id>`. */
  dedupeKey: string;
};

// A type is on unless the user stored `in_app: false` for it.
const WANTS_IN_APP = sql.fragment`COALESCE(u.notification_prefs -> n.type ->> 'in_app', 'true') <> 'false'`;
// Email too unless the user stored `email: false` for the type; the worker sends it (core/notifications/emails.ts).
const WANTS_EMAIL = sql.fragment`COALESCE(u.notification_prefs -> n.type ->> 'email', 'true') <> 'false'`;

/** Inserts the notifications their recipients want; returns how many were new. */
export async function notifyUsers(tx: CommonQueryMethods, notifications: readonly NewNotification[]): Promise<number> {
  if (notifications.length === 0) return 0;
  const rows = notifications.map((n) => ({ user_id: n.userId, type: n.type, title: n.title, body: n.body, data: n.data, dedupe_key: n.dedupeKey }));
  const result = await tx.query(sql.type(z.object({ id: z.string() }))`
    INSERT INTO notifications (user_id, type, title, body, data, dedupe_key, email_pending)
    SELECT n.user_id, n.type, n.title, n.body, n.data, n.dedupe_key, ${WANTS_EMAIL}
    FROM jsonb_to_recordset(${sql.jsonb(rows as never)}) AS n(user_id uuid, type text, title text, body text, data jsonb, dedupe_key text)
    JOIN users u ON u.id = n.user_id
    WHERE ${WANTS_IN_APP}
    ON CONFLICT (user_id, dedupe_key) DO NOTHING
    RETURNING id
  `);
  return result.rowCount;
}

export type SignerBatch = { seen: number; inserted: number; lastUserId: string | null };

/** One batch of a petition's signers to notify (notifySignersBatch, and the activity that runs it). */
export type SignerBatchInput = {
  petitionId: string;
  afterUserId: string | null;
  limit: number;
  type: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  dedupeKey: string;
  /** Only signers who stored `in_app: true` for the type themselves (milestones: signers opt in). */
  optedInOnly?: boolean;
};

/** What a signer fan-out tells the signers of one petition: a batch without its place in the keyset. */
export type SignerNotice = Omit<SignerBatchInput, 'afterUserId' | 'limit'>;

/**
 * One keyset batch of a petition's signers (by user_id, on the signatures_one_per_user index), each
 * notified once per dedupeKey. The petition's creator is skipped: they hear about it as the creator.
 */
export async function notifySignersBatch(db: CommonQueryMethods, input: SignerBatchInput): Promise<SignerBatch> {
  return db
    .one(
      sql.type(z.object({ seen: z.number(), inserted: z.number(), last_user_id: z.string().nullable() }))`
    WITH batch AS (
      SELECT s.user_id FROM signatures s
      WHERE s.petition_id = ${input.petitionId}
        ${input.afterUserId ? sql.fragment`AND s.user_id > ${input.afterUserId}` : sql.fragment``}
      ORDER BY s.user_id
      LIMIT ${input.limit}
    ), inserted AS (
      INSERT INTO notifications (user_id, type, title, body, data, dedupe_key, email_pending)
      SELECT b.user_id, n.type, ${input.title}, ${input.body}, ${sql.jsonb(input.data as never)}, ${input.dedupeKey}, ${WANTS_EMAIL}
      FROM batch b
      JOIN users u ON u.id = b.user_id
      CROSS JOIN (SELECT ${input.type}::text AS type) n
      WHERE ${input.optedInOnly ? sql.fragment`u.notification_prefs -> n.type ->> 'in_app' = 'true'` : WANTS_IN_APP}
        AND b.user_id <> (SELECT creator_id FROM petitions WHERE id = ${input.petitionId})
      ON CONFLICT (user_id, dedupe_key) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*)::int FROM batch) AS seen,
           (SELECT count(*)::int FROM inserted) AS inserted,
           (SELECT user_id::text FROM batch ORDER BY user_id DESC LIMIT 1) AS last_user_id
  `,
    )
    .then((row) => ({ seen: row.seen, inserted: row.inserted, lastUserId: row.last_user_id }));
}

/**
 * Whether any signer of the petition other than its creator opted in to petition.milestone: when
 * none did, a crossing needs no signer fan-out.
 */
export async function hasMilestoneSubscribers(db: CommonQueryMethods, petitionId: string): Promise<boolean> {
  const creatorId = sql.fragment`(SELECT creator_id FROM petitions WHERE id = ${petitionId})`;
  return db.oneFirst(sql.type(z.object({ found: z.boolean() }))`
    SELECT EXISTS (${milestoneListeningSigners(petitionId, creatorId)}) AS found
  `);
}

/**
 * For the comments code, in the transaction that stores a reply: tells the parent comment's author,
 * unless they replied to themselves.
 */
export async function notifyCommentReply(
  tx: CommonQueryMethods,
  reply: { id: string; parentId: string; petitionId: string; authorId: string; authorName: string; body: string },
): Promise<void> {
  const parentAuthor = await tx.maybeOneFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM comments WHERE id = ${reply.parentId} AND deleted_at IS NULL
  `);
  if (!parentAuthor || parentAuthor === reply.authorId) return;
  await notifyUsers(tx, [
    {
      userId: parentAuthor,
      type: 'comment.reply',
      // Its title is the email's subject: the replier's name as plain words (core/users/name-in-mail.ts).
      title: `${nameInMail(reply.authorName, 'Someone')} replied to your comment`,
      body: reply.body.length > 200 ? `${reply.body.slice(0, 199)}…` : reply.body,
      data: { petition_id: reply.petitionId, comment_id: reply.id, parent_id: reply.parentId },
      dedupeKey: `comment-reply:${reply.id}`,
    },
  ]);
}
