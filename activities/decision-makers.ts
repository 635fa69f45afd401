// What the decision-maker workflows do: issue and email portal tokens, remind, expire. The raw
// token exists only inside sendPortalInvitation, between its creation and the email: it is never
// returned, logged or written anywhere but the message.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import {
  expireResponseToken,
  findInvitee,
  listUninvitedDecisionMakers,
  markInvitationFailed,
  markInvitationSent,
  storeUnsentToken,
} from '../core/decision-makers/invitations.ts';
import { claimInvitation } from '../core/decision-makers/invitation-budget.ts';
import { newPortalToken, portalUrl } from '../core/decision-makers/portal-tokens.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer } from '../platform/mailer.ts';
import { invitationEmail, reminderEmail } from './portal-emails.ts';

export type DecisionMakerActivityDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; responseTokenTtlMs: number };

export type IssuedToken = { tokenId: string; issuedAt: string; expiresAt: string };

/** A refusal of the message itself (5xx, e.g. an unknown mailbox) will not change on retry. */
function classifyMailError(error: unknown): never {
  const { responseCode, response } = error as { responseCode?: number; response?: string };
  if (responseCode && responseCode >= 500)
    throw ApplicationFailure.nonRetryable(`The mail server refused the invitation: ${response ?? responseCode}`, FAILURE_TYPES.mailRejected);
  throw error;
}

export function createDecisionMakerActivities({ db, mailer, publicUrl, responseTokenTtlMs }: DecisionMakerActivityDependencies) {
  return {
    /** Decision makers of the petition without a sent invitation (all of them, or those named). */
    listUninvitedDecisionMakers: ({ petitionId, decisionMakerIds }: { petitionId: string; decisionMakerIds?: string[] }): Promise<string[]> =>
      listUninvitedDecisionMakers(db, petitionId, decisionMakerIds),

    /**
     * Issues the decision maker's token and emails its link. Until the email is out, a retry replaces
     * the stored hash with a fresh token's; after, it returns the sent token unchanged. Null when the
     * decision maker or the petition is gone.
     */
    async sendPortalInvitation({ decisionMakerId }: { decisionMakerId: string }): Promise<IssuedToken | null> {
      const invitee = await findInvitee(db, { decisionMakerId });
      if (!invitee) return null;
      if (invitee.sent_at) return { tokenId: invitee.token_id!, issuedAt: invitee.issued_at!, expiresAt: invitee.expires_at! };
      if (!(await claimInvitation(db, decisionMakerId))) {
        throw ApplicationFailure.nonRetryable('This address was already invited to this petition within the last 7 days.', FAILURE_TYPES.invitationRefused);
      }
      const token = newPortalToken();
      const issued = await storeUnsentToken(db, invitee, token.hash, responseTokenTtlMs);
      // Another run sent it between our read and this write; the retry returns that token.
      if (!issued) throw new Error(`the invitation of decision maker ${decisionMakerId} was sent concurrently`);
      await mailer.send(invitationEmail(invitee, portalUrl(publicUrl, token.raw), issued.expires_at, publicUrl)).catch(classifyMailError);
      await markInvitationSent(db, issued.id, decisionMakerId);
      return { tokenId: issued.id, issuedAt: issued.created_at, expiresAt: issued.expires_at };
    },

    markInvitationFailed: ({ decisionMakerId, reason }: { decisionMakerId: string; reason: string }): Promise<void> =>
      markInvitationFailed(db, decisionMakerId, reason),

    /** Sends the one reminder, unless the token was answered, expired or removed meanwhile. */
    async sendResponseReminder({ tokenId }: { tokenId: string }): Promise<boolean> {
      const invitee = await findInvitee(db, { tokenId });
      if (!invitee || invitee.responded_at || invitee.expired_at) return false;
      await mailer.send(reminderEmail(invitee, invitee.expires_at!)).catch(classifyMailError);
      return true;
    },

    /** False once the decision maker (and so the token) was removed. Kept for runs that took the 'end-when-token-removed' path. */
    responseTokenExists: async ({ tokenId }: { tokenId: string }): Promise<boolean> => (await findInvitee(db, { tokenId })) !== null,

    /** Where a token stands when its expiry workflow starts: removed, answered already (before the workflow could hear of it), or open. */
    async responseTokenState({ tokenId }: { tokenId: string }): Promise<'removed' | 'responded' | 'open'> {
      const invitee = await findInvitee(db, { tokenId });
      return !invitee ? 'removed' : invitee.responded_at ? 'responded' : 'open';
    },

    /** Ends an unanswered token for good; false when it was answered first. Safe to repeat. */
    expireResponseToken: ({ tokenId }: { tokenId: string }): Promise<boolean> => expireResponseToken(db, tokenId),
  };
}

export type DecisionMakerActivities = ReturnType<typeof createDecisionMakerActivities>;

export function decisionMakerDependencies(db: DatabasePool, config: Config): DecisionMakerActivityDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, responseTokenTtlMs: config.responseTokenTtlMs };
}
