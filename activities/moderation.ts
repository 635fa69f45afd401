// What the moderation workflows do: auto-hide and reviewers' decisions (workflows/moderation.ts),
// the end of a timed suspension, warning emails, and bulk signature invalidation. Thin adapters over
// core/; petition moves go through the petition's own workflow (the PetitionWorkflows port).
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { SYSTEM_AUDIT, type AuditContext } from '../core/audit/audit-log.ts';
import { applyModerationDecision, hideIfReportedEnough, type AutoHideSettings, type ModerationDecision } from '../core/moderation/actions.ts';
import { countOpenReporters, type ModerationTarget } from '../core/moderation/reports.ts';
import type { PetitionWorkflows } from '../core/petitions/lifecycle.ts';
import { markWarningEmailed, pendingWarningEmail } from '../core/moderation/warnings.ts';
import { finishInvalidation, invalidateBatch, type BatchInput } from '../core/signatures/invalidation.ts';
import { unsuspendUser } from '../core/users/suspension.ts';
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer } from '../platform/mailer.ts';
import { asActivity } from './failures.ts';

export type ModerationActivityDependencies = {
  db: DatabasePool;
  petitionWorkflows: PetitionWorkflows | undefined;
  autoHide: AutoHideSettings;
  mailer: Mailer;
  publicUrl: string;
};

export function createModerationActivities(deps: ModerationActivityDependencies) {
  const effects = () => {
    if (!deps.petitionWorkflows) throw ApplicationFailure.retryable('This worker has no Temporal client for petition transitions', 'NoTemporalClient');
    return { db: deps.db, workflows: deps.petitionWorkflows };
  };
  return {
    hideIfReportedEnough({ target }: { target: ModerationTarget }) {
      return asActivity(() => hideIfReportedEnough({ ...effects(), ...deps.autoHide }, target));
    },
    applyModerationDecision(decision: ModerationDecision) {
      return asActivity(() => applyModerationDecision(effects(), decision));
    },
    countOpenReports({ target }: { target: ModerationTarget }) {
      return countOpenReporters(deps.db, target);
    },
    /** True when the suspension it was set for was still in force and is now lifted. */
    async endSuspension({ userId, suspendedAt }: { userId: string; suspendedAt: string }): Promise<boolean> {
      return (await asActivity(() => unsuspendUser(deps.db, userId, SYSTEM_AUDIT, suspendedAt))) !== null;
    },
    /** False when the warning was emailed already (a retry) or is gone. */
    async sendWarningEmail({ warningId }: { warningId: string }): Promise<boolean> {
      const warning = await pendingWarningEmail(deps.db, warningId);
      if (!warning) return false;
      await deps.mailer
        .send({
          to: warning.email,
          subject: 'A warning from the Rally moderators',
          text: [`Hello ${warning.display_name},`, '', warning.message, '', `Reason: ${warning.reason}`, '', `Your notifications: ${deps.publicUrl}`].join(
            '\n',
          ),
        })
        .catch((error: { responseCode?: number; message?: string }) => {
          if (error.responseCode && error.responseCode >= 500)
            throw ApplicationFailure.nonRetryable(`The mail server refused the warning: ${error.message ?? ''}`, FAILURE_TYPES.mailRejected);
          throw error;
        });
      await markWarningEmailed(deps.db, warningId);
      return true;
    },
    invalidateSignatureBatch(input: BatchInput) {
      return invalidateBatch(deps.db, input);
    },
    finishSignatureInvalidation(input: { invalidationId: string; matched: number; dryRun: boolean; audit: AuditContext }) {
      return asActivity(() => finishInvalidation(deps.db, input));
    },
  };
}

export type ModerationActivities = ReturnType<typeof createModerationActivities>;

export function moderationDependencies(db: DatabasePool, config: Config, petitionWorkflows: PetitionWorkflows | undefined): ModerationActivityDependencies {
  return {
    db,
    petitionWorkflows,
    autoHide: { threshold: config.moderation.autohideThreshold, minAccountAgeMs: config.moderation.minAccountAgeMs },
    mailer: createMailer(config.mail),
    publicUrl: config.publicUrl,
  };
}
