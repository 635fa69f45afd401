// What the decision-maker workflows do: issue and email portal tokens, remind, expire. The raw
// token exists only inside sendPortalInvitation, between its creation and the email: it is never
// returned, logged or written anywhere but the message.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import { newPortalToken, portalUrl } from '../core/decision-makers/portal-tokens.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer } from '../platform/mailer.ts';
import { invitationEmail, reminderEmail } from './portal-emails.ts';

export type DecisionMakerActivityDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; responseTokenTtlMs: number };

const Invitee = z.object({
  name: z.string(), title: z.string(), email: z.string(), petition_title: z.string(), petition_slug: z.string(), signature_count: z.number(),
  decision_maker_id: z.string(), petition_id: z.string(),
  token_id: z.string().nullable(), sent_at: z.string().nullable(), issued_at: z.string().nullable(), expires_at: z.string().nullable(),
  responded_at: z.string().nullable(), expired_at: z.string().nullable(),
});

const INVITEE_SELECT = sql.fragment`
  SELECT d.name, d.title, d.email, p.title AS petition_title, p.slug AS petition_slug,
    (SELECT coalesce(sum(count), 0) FROM signature_counters WHERE petition_id = p.id)::bigint AS signature_count,
    d.id AS decision_maker_id, p.id AS petition_id, t.id AS token_id, t.sent_at, t.created_at AS issued_at, t.expires_at,
    t.responded_at, t.expired_at
  FROM petition_decision_makers d
  JOIN petitions p ON p.id = d.petition_id AND p.deleted_at IS NULL
  LEFT JOIN response_tokens t ON t.decision_maker_id = d.id`;

export type IssuedToken = { tokenId: string; issuedAt: string; expiresAt: string };

/** A refusal of the message itself (5xx, e.g. an unknown mailbox) will not change on retry. */
function classifyMailError(error: unknown): never {
  const { responseCode, response } = error as { responseCode?: number; response?: string };
  if (responseCode && responseCode >= 500) throw ApplicationFailure.nonRetryable(`The mail server refused the invitation: ${response ?? responseCode}`, FAILURE_TYPES.mailRejected);
  throw error;
}

export function createDecisionMakerActivities({ db, mailer, publicUrl, responseTokenTtlMs }: DecisionMakerActivityDependencies) {
  return {
    /** Decision makers of the petition without a sent invitation (all of them, or those named). */
    async listUninvitedDecisionMakers({ petitionId, decisionMakerIds }: { petitionId: string; decisionMakerIds?: string[] }): Promise<string[]> {
      const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
        SELECT d.id FROM petition_decision_makers d LEFT JOIN response_tokens t ON t.decision_maker_id = d.id
        WHERE d.petition_id = ${petitionId} AND t.sent_at IS NULL
          ${decisionMakerIds ? sql.fragment`AND d.id = ANY(${sql.array(decisionMakerIds, 'uuid')})` : sql.fragment``}
        ORDER BY d.created_at, d.id
      `);
      return [...ids];
    },

    /**
     * Issues the decision maker's token and emails its link. Until the email is out, a retry replaces
     * the stored hash with a fresh token's; after, it returns the sent token unchanged. Null when the
     * decision maker or the petition is gone.
     */
    async sendPortalInvitation({ decisionMakerId }: { decisionMakerId: string }): Promise<IssuedToken | null> {
      const invitee = await db.maybeOne(sql.type(Invitee)`${INVITEE_SELECT} WHERE d.id = ${decisionMakerId}`);
      if (!invitee) return null;
      if (invitee.sent_at) return { tokenId: invitee.token_id!, issuedAt: invitee.issued_at!, expiresAt: invitee.expires_at! };
      const token = newPortalToken();
      const issued = await db.maybeOne(sql.type(z.object({ id: z.string(), created_at: z.string(), expires_at: z.string() }))`
        INSERT INTO response_tokens (decision_maker_id, petition_id, token_hash, expires_at)
        VALUES (${decisionMakerId}, ${invitee.petition_id}, ${sql.binary(token.hash)}, now() + make_interval(secs => ${responseTokenTtlMs / 1000}))
        ON CONFLICT ON CONSTRAINT response_tokens_one_per_decision_maker DO UPDATE
          SET token_hash = EXCLUDED.token_hash, created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE response_tokens.sent_at IS NULL
        RETURNING id, created_at, expires_at
      `);
      // Another run sent it between our read and this write; the retry returns that token.
      if (!issued) throw new Error(`the invitation of decision maker ${decisionMakerId} was sent concurrently`);
      await mailer.send(invitationEmail(invitee, portalUrl(publicUrl, token.raw), issued.expires_at, publicUrl)).catch(classifyMailError);
      await db.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`UPDATE response_tokens SET sent_at = now() WHERE id = ${issued.id}`);
        await tx.query(sql.typeAlias('void')`
          UPDATE petition_decision_makers SET delivery_status = 'sent', delivery_error = NULL, invited_at = now()
          WHERE id = ${decisionMakerId} AND delivery_status IN ('pending', 'failed')
        `);
      });
      return { tokenId: issued.id, issuedAt: issued.created_at, expiresAt: issued.expires_at };
    },

    async markInvitationFailed({ decisionMakerId, reason }: { decisionMakerId: string; reason: string }): Promise<void> {
      await db.query(sql.typeAlias('void')`
        UPDATE petition_decision_makers SET delivery_status = 'failed', delivery_error = ${reason}
        WHERE id = ${decisionMakerId} AND delivery_status IN ('pending', 'failed')
      `);
    },

    /** Sends the one reminder, unless the token was answered, expired or removed meanwhile. */
    async sendResponseReminder({ tokenId }: { tokenId: string }): Promise<boolean> {
      const invitee = await db.maybeOne(sql.type(Invitee)`${INVITEE_SELECT} WHERE t.id = ${tokenId}`);
      if (!invitee || invitee.responded_at || invitee.expired_at) return false;
      await mailer.send(reminderEmail(invitee, invitee.expires_at!)).catch(classifyMailError);
      return true;
    },

    /** Ends an unanswered token for good; false when it was answered first. Safe to repeat. */
    async expireResponseToken({ tokenId }: { tokenId: string }): Promise<boolean> {
      return db.transaction(async (tx) => {
        const expired = await tx.maybeOneFirst(sql.type(z.object({ decision_maker_id: z.string() }))`
          UPDATE response_tokens SET expired_at = COALESCE(expired_at, now()) WHERE id = ${tokenId} AND responded_at IS NULL
          RETURNING decision_maker_id
        `);
        if (!expired) return false;
        await tx.query(sql.typeAlias('void')`
          UPDATE petition_decision_makers SET delivery_status = 'expired', expired_at = COALESCE(expired_at, now())
          WHERE id = ${expired} AND delivery_status IN ('sent', 'viewed')
        `);
        return true;
      });
    },
  };
}

export type DecisionMakerActivities = ReturnType<typeof createDecisionMakerActivities>;

export function decisionMakerDependencies(db: DatabasePool, config: Config): DecisionMakerActivityDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, responseTokenTtlMs: config.responseTokenTtlMs };
}
