// What the domain asks of a petition's workflow (one per petition, owner of its state machine; the Temporal side is orchestration/petitions.ts): start it at
// create, send each transition as an update, and tell it the petition was deleted. A transition the workflow refuses comes back as a domain error (409
// invalid_transition, 404); an unreachable workflow service as a 503.
import type { PetitionEvent, PetitionStatus, TransitionInput, TransitionResult } from './transitions.ts';

/** What a transition carries besides its petition and statuses: who asks, a victory message, an admin's audit row. */
export type TransitionRequest = Omit<TransitionInput, 'petitionId' | 'from' | 'to'>;

export type PetitionWorkflows = {
  /** `title` names the petition in the Web UI; a workflow started later shows its id. */
  startPetition(petitionId: string, title: string): Promise<void>;
  /**
   * `update`: the workflow's Update of that name (one per event of the transition table);
   * `currentStatus` starts the workflow in that state if it is missing (imported data, a lost start).
   */
  transitionPetition(update: PetitionEvent, petitionId: string, currentStatus: PetitionStatus, request: TransitionRequest): Promise<TransitionResult>;
  /** Best effort: the petition is already deleted; the signal only lets its workflow finish. */
  petitionDeleted(petitionId: string): Promise<void>;
};

export type LifecycleDependencies = { workflows: PetitionWorkflows };
