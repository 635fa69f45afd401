// What the petition lifecycle workflow does to the database: one transition per call, through the
// domain's transitionPetition. Its refusals become the failure types the workflow reads.
import type { DatabasePool } from 'slonik';
import { transitionPetition } from '../core/petitions/status-change.ts';
import type { TransitionInput, TransitionResult } from '../core/petitions/transitions.ts';
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { asActivity } from './failures.ts';

export type { PetitionStatus, TransitionResult } from '../core/petitions/transitions.ts';

const FAILURE_OF_CODE = { petition_not_found: FAILURE_TYPES.petitionNotFound, invalid_transition: FAILURE_TYPES.invalidTransition };

export function createPetitionActivities({ db }: { db: DatabasePool }) {
  return {
    transitionPetition(input: TransitionInput): Promise<TransitionResult> {
      return asActivity(() => transitionPetition(db, input), FAILURE_OF_CODE);
    },
  };
}

export type PetitionActivities = ReturnType<typeof createPetitionActivities>;
