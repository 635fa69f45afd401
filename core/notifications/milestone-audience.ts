// Who hears of a petition's milestone besides its creator (told through the outbox): the owner and admins of its organization, and the signers who opted in to
// petition.milestone. Written once, for the workflow's steps that tell them (core/organizations/milestone-notifications.ts, hasMilestoneSubscribers) and for
// the dispatcher, which settles a crossing nobody hears without signalling the petition's workflow (most crossings: signers are opted out by default).
import type { ValueExpression } from 'slonik';
import { sql } from '../../db/sql.ts';

type Operand = ValueExpression;

/** The organization's owner and admins other than the creator: `SELECT user_id …`. */
export const milestoneAdmins = (orgId: Operand, creatorId: Operand) => sql.fragment`
  SELECT om.user_id FROM organization_members om
  WHERE om.org_id = ${orgId} AND om.role IN ('owner', 'admin') AND om.user_id <> ${creatorId}
`;

/** Signers other than the creator who opted in; served by users_milestone_opt_in_idx. */
export const milestoneListeningSigners = (petitionId: Operand, creatorId: Operand) => sql.fragment`
  SELECT u.id FROM users u
  JOIN signatures s ON s.petition_id = ${petitionId} AND s.user_id = u.id
  WHERE (u.notification_prefs -> 'petition.milestone' ->> 'in_app') = 'true' AND u.id <> ${creatorId}
`;
