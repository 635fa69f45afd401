// What the domain asks of a petition's workflow (one per petition, owner of its state machine; the
// Temporal side is orchestration/petitions.ts): start it at create, send each transition as an
// update, and tell it the petition was deleted. A transition the workflow refuses comes back as a
// domain error (409 invalid_transition, 404); an unreachable workflow service as a 503.
import type { ActorType, AuditAction } from '../vocabulary.ts';
import type { PetitionStatus, TransitionResult } from './transitions.ts';

export type Actor = { type: ActorType; id: string | null };
/** For admin transitions: the audit row the activity writes in the transition's own transaction. */
export type TransitionAudit = {
  context: { actorType: 'user' | 'api_key' | 'system' | 'cli'; actorId: string | null; credential: string; requestId: string | null };
  action: AuditAction;
};
export type TransitionRequest = { actor: Actor; victoryMessage?: string; audit?: TransitionAudit };

/** The workflow's updates, by name: the creator's three, then moderation's. */
export type LifecycleUpdate = 'publish' | 'close' | 'victory' | 'holdForReview' | 'releaseFromReview' | 'adminClose';

export type PetitionWorkflows = {
  /** `title` names the petition in the Web UI; a workflow started later shows its id. */
  startPetition(petitionId: string, title: string): Promise<void>;
  /** `currentStatus` starts the workflow in that state if it is missing (imported data, a lost start). */
  transitionPetition(update: LifecycleUpdate, petitionId: string, currentStatus: PetitionStatus, request: TransitionRequest): Promise<TransitionResult>;
  /** Best effort: the petition is already deleted; the signal only lets its workflow finish. */
  petitionDeleted(petitionId: string): Promise<void>;
};

export type LifecycleDependencies = { workflows: PetitionWorkflows };
