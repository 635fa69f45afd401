import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../core/errors/domain-error.ts';
import {
  ANONYMOUS,
  assertCanManage,
  assertCanRead,
  canList,
  canManage,
  canRead,
  knowsOf,
  showsReviewNotice,
  viewerOf,
  type PetitionAccessFacts,
  type Viewer,
} from '../../../core/petitions/policy.ts';
import { ACCESS_CODE, EXPECTED, outcomeCell, PETITION_SHAPES, PETITIONS, REVIEW_NOTICE, VIEWERS, type ViewerKind } from './policy-matrix.ts';

const creatorId = randomUUID();
const orgId = randomUUID();
const viewers: Record<ViewerKind, Viewer> = {
  anonymous: ANONYMOUS,
  signer: { userId: randomUUID(), role: 'user', administeredOrganizationIds: [] },
  creator: { userId: creatorId, role: 'user', administeredOrganizationIds: [] },
  platformAdmin: { userId: randomUUID(), role: 'admin', administeredOrganizationIds: [] },
  orgAdmin: { userId: randomUUID(), role: 'user', administeredOrganizationIds: [orgId] },
};

function petition(kind: (typeof PETITIONS)[number]): PetitionAccessFacts {
  const shape = PETITION_SHAPES[kind];
  return {
    creator_id: creatorId,
    org_id: orgId,
    status: shape.status,
    visibility: shape.visibility,
    access_code: shape.visibility === 'private' ? ACCESS_CODE : null,
    deleted_at: shape.deleted ? '2026-01-01T00:00:00Z' : null,
  };
}

describe('petition policy predicates (core/petitions/policy.ts)', () => {
  for (const viewerKind of VIEWERS) {
    for (const petitionKind of PETITIONS) {
      it(`${viewerKind} × ${petitionKind}: ${EXPECTED[viewerKind][petitionKind]}`, () => {
        const viewer = viewers[viewerKind];
        const facts = petition(petitionKind);
        const cell = outcomeCell({
          knows: knowsOf(viewer, facts),
          read: canRead(viewer, facts),
          readWithCode: canRead(viewer, facts, ACCESS_CODE.toLowerCase()),
          listed: canList(viewer, facts),
          manages: canManage(viewer, facts),
        });
        expect(cell).to.equal(EXPECTED[viewerKind][petitionKind]);
      });
    }
  }

  for (const viewerKind of VIEWERS) {
    it(`${viewerKind} sees a review notice on the public page for: ${REVIEW_NOTICE[viewerKind].join(', ') || 'nothing'}`, () => {
      const noticed = PETITIONS.filter((kind) => showsReviewNotice(viewers[viewerKind], petition(kind)));
      expect(noticed).to.deep.equal(REVIEW_NOTICE[viewerKind]);
    });
  }

  it('shows no review notice for a private petition under review: its link alone reveals nothing', () => {
    expect(showsReviewNotice(ANONYMOUS, { ...petition('private'), status: 'under_review' })).to.equal(false);
    expect(showsReviewNotice(ANONYMOUS, { ...petition('unlisted'), status: 'under_review' })).to.equal(true);
  });

  it('refuses a wrong access code to a stranger with 403 access_code_required, and a hidden petition with 404', () => {
    expect(() => assertCanRead(ANONYMOUS, petition('private'), 'WRONGCODE1'))
      .to.throw(DomainError)
      .that.include({ kind: 'forbidden', code: 'access_code_required' });
    expect(() => assertCanRead(ANONYMOUS, petition('draft')))
      .to.throw(DomainError)
      .with.property('kind', 'not-found');
    expect(() => assertCanRead(ANONYMOUS, null))
      .to.throw(DomainError)
      .with.property('kind', 'not-found');
  });

  it('answers 403 not_owner to a reader who may not manage, 404 for a missing petition', () => {
    expect(() => assertCanManage(viewers.signer, petition('active')))
      .to.throw(DomainError)
      .that.include({ kind: 'forbidden', code: 'not_owner' });
    expect(() => assertCanManage(viewers.creator, null))
      .to.throw(DomainError)
      .with.property('kind', 'not-found');
  });

  it('sees a request without credentials as the anonymous viewer, and a principal with its role', () => {
    expect(viewerOf(undefined)).to.deep.equal({ userId: null, role: 'user', administeredOrganizationIds: [] });
    expect(viewerOf({ userId: creatorId, role: 'admin' })).to.deep.equal({ userId: creatorId, role: 'admin', administeredOrganizationIds: [] });
  });
});
