// The petition state machine as ONE table of data (from which status each event moves a petition, to which, and who may ask), used by the lifecycle workflow,
// moderation (core/moderation/effects.ts) and the transition activity (status-change.ts). Pure data, no I/O: the workflow sandbox imports it (the lint rules
// allow this one core/ file). Source: the spec's lifecycle; test/core/petitions/transitions.unit.test.ts checks every status × event against it.
import type { AuditContext } from '../audit/audit-log.ts';
import type { Actor } from '../events/record-event.ts';
import type { AuditAction, PetitionStatus } from '../vocabulary.ts';

export type { PetitionStatus };
export type TransitionInput = {
  petitionId: string;
  from: PetitionStatus;
  to: PetitionStatus;
  actor: Actor;
  victoryMessage?: string;
  /** Admin transitions are audited in the same transaction. */
  audit?: { context: AuditContext; action: AuditAction };
};
export type TransitionResult = { petitionId: string; status: PetitionStatus };

/** The workflow's Update names, one per event. */
export type PetitionEvent = 'publish' | 'close' | 'victory' | 'holdForReview' | 'releaseFromReview' | 'adminClose';
/** `manager`: the creator or an organization admin (the API's transition routes); `moderator`: a platform admin or the moderation system. */
export type Mover = 'manager' | 'moderator';
export type Transition = { readonly from: PetitionStatus; readonly event: PetitionEvent; readonly to: PetitionStatus; readonly by: Mover };

export const TRANSITIONS: readonly Transition[] = [
  { from: 'draft', event: 'publish', to: 'active', by: 'manager' },
  { from: 'active', event: 'close', to: 'closed', by: 'manager' },
  { from: 'active', event: 'victory', to: 'victory', by: 'manager' },
  // Moderation (behind the workflow's patch MODERATION_TRANSITIONS): hold for review, release, close.
  { from: 'active', event: 'holdForReview', to: 'under_review', by: 'moderator' },
  { from: 'under_review', event: 'releaseFromReview', to: 'active', by: 'moderator' },
  { from: 'active', event: 'adminClose', to: 'closed', by: 'moderator' },
  { from: 'under_review', event: 'adminClose', to: 'closed', by: 'moderator' },
];

/** How a refusal names each event: "Only a draft petition can be published". */
export const EVENT_PARTICIPLES: Readonly<Record<PetitionEvent, string>> = {
  publish: 'published',
  close: 'closed',
  victory: 'marked a victory',
  holdForReview: 'put under review',
  releaseFromReview: 'released from review',
  adminClose: 'closed',
};

/** The statuses from which `event` moves a petition. */
export const sourcesOf = (event: PetitionEvent): PetitionStatus[] => TRANSITIONS.filter((row) => row.event === event).map((row) => row.from);

/** The transition `event` makes from `status`, if there is one. */
export const transitionOf = (event: PetitionEvent, status: PetitionStatus): Transition | undefined =>
  TRANSITIONS.find((row) => row.event === event && row.from === status);

/** Whether some event moves a petition from `from` to `to` (the activity's check). */
export const isTransition = (from: PetitionStatus, to: PetitionStatus): boolean => TRANSITIONS.some((row) => row.from === from && row.to === to);

/** Statuses no event leaves: the workflow's end states. */
export const isTerminal = (status: PetitionStatus): boolean => !TRANSITIONS.some((row) => row.from === status);
