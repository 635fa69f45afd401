// The petition state machine, every status × event, written out by hand from the spec's "States and transitions" (publish, close, victory: the owner; any other
// state: 409) and from the moderation moves the spec leaves unshown (docs/guides/moderation.md: hold for review, release, admin close), not read from
// core/petitions/transitions.ts.
import { expect } from 'chai';
import { isTerminal, isTransition, sourcesOf, transitionOf, type PetitionEvent, type PetitionStatus } from '../../../core/petitions/transitions.ts';

const STATUSES: PetitionStatus[] = ['draft', 'active', 'closed', 'victory', 'under_review'];
const EVENTS: PetitionEvent[] = ['publish', 'close', 'victory', 'holdForReview', 'releaseFromReview', 'adminClose'];

// Each cell: "<to> by <who>", or "refused" (the API's 409 invalid_transition).
const R = 'refused';
const EXPECTED: Record<PetitionStatus, Record<PetitionEvent, string>> = {
  draft: { publish: 'active by manager', close: R, victory: R, holdForReview: R, releaseFromReview: R, adminClose: R },
  active: {
    publish: R,
    close: 'closed by manager',
    victory: 'victory by manager',
    holdForReview: 'under_review by moderator',
    releaseFromReview: R,
    adminClose: 'closed by moderator',
  },
  closed: { publish: R, close: R, victory: R, holdForReview: R, releaseFromReview: R, adminClose: R },
  victory: { publish: R, close: R, victory: R, holdForReview: R, releaseFromReview: R, adminClose: R },
  under_review: { publish: R, close: R, victory: R, holdForReview: R, releaseFromReview: 'active by moderator', adminClose: 'closed by moderator' },
};

describe('petition transitions (core/petitions/transitions.ts)', () => {
  for (const status of STATUSES) {
    for (const event of EVENTS) {
      it(`${status} × ${event}: ${EXPECTED[status][event]}`, () => {
        const row = transitionOf(event, status);
        expect(row ? `${row.to} by ${row.by}` : R).to.equal(EXPECTED[status][event]);
      });
    }
  }

  it('names, for each event, the statuses it leaves from (the 409 messages and the moderation checks)', () => {
    expect(Object.fromEntries(EVENTS.map((event) => [event, sourcesOf(event)]))).to.deep.equal({
      publish: ['draft'],
      close: ['active'],
      victory: ['active'],
      holdForReview: ['active'],
      releaseFromReview: ['under_review'],
      adminClose: ['active', 'under_review'],
    });
  });

  it('ends the lifecycle at closed and victory only', () => {
    expect(STATUSES.filter(isTerminal)).to.deep.equal(['closed', 'victory']);
  });

  it('lets the transition activity refuse a move no event makes (draft → victory, closed → active)', () => {
    expect(isTransition('draft', 'active')).to.equal(true);
    expect(isTransition('draft', 'victory')).to.equal(false);
    expect(isTransition('closed', 'active')).to.equal(false);
  });
});
