import { expect } from 'chai';
import { Ajv } from 'ajv';
import { Petition, PetitionSummary } from '../../../api/petitions/schemas.ts';
import { addFormats } from '../../../api/http/validation.ts';
import { toPetitionDetail, toPetitionSummary } from '../../../core/petitions/presenter.ts';
import type { PetitionRow } from '../../../core/petitions/queries.ts';

const CREATOR = '7b0b8c56-4a39-4d5e-9a55-1f6f0e3f5c10';

function petitionRow(overrides: Partial<PetitionRow> = {}): PetitionRow {
  return {
    id: '0f0e3f5c-4a39-4d5e-9a55-1f6f7b0b8c56',
    slug: 'save-the-library',
    title: 'Save the library',
    description: 'Keep it open on Sundays.',
    status: 'active',
    creator_id: CREATOR,
    org_id: null,
    category: null,
    creator: { id: CREATOR, display_name: 'Ada', slug: 'ada', bio: null, avatar_url: null, petition_count: 1 },
    tags: ['library'],
    image_url: null,
    signature_goal: 100,
    visibility: 'private',
    access_code: 'ABCD1234',
    location_city: 'Lyon',
    location_region: null,
    location_country: 'FR',
    signature_privacy: 'public',
    victory_message: null,
    live_signature_count: 42,
    ranked_signature_count: 40,
    trending_score: 3.5,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
    published_at: '2026-01-01T01:00:00.000Z',
    closed_at: null,
    signer_data_deleted_at: null,
    ...overrides,
  };
}

describe('petition presenter (core/petitions/presenter.ts)', () => {
  const validate = addFormats(new Ajv({ strict: false })).compile(PetitionSummary);

  it('shows the live signature count and groups the location', () => {
    const shown = toPetitionSummary(petitionRow(), undefined);
    expect(shown.signature_count).to.equal(42);
    expect(shown.location).to.deep.equal({ city: 'Lyon', region: null, country: 'FR' });
  });

  it('shows the access code to the creator only', () => {
    expect(toPetitionSummary(petitionRow(), CREATOR)).to.have.property('access_code', 'ABCD1234');
    expect(toPetitionSummary(petitionRow(), 'someone-else')).to.not.have.property('access_code');
    expect(toPetitionSummary(petitionRow(), undefined)).to.not.have.property('access_code');
  });

  it('never shows internal columns (creator_id, ranking scores)', () => {
    const shown = toPetitionSummary(petitionRow(), CREATOR);
    for (const internal of ['creator_id', 'ranked_signature_count', 'trending_score', 'live_signature_count']) expect(shown).to.not.have.property(internal);
  });

  it('produces what the PetitionSummary response schema describes', () => {
    expect(validate(toPetitionSummary(petitionRow(), CREATOR)), JSON.stringify(validate.errors)).to.equal(true);
  });

  describe('signer-data dates (RALLY_SIGNER_DATA_RETENTION, issue 46)', () => {
    const DAYS_30 = 30 * 86_400_000;
    const closed = { status: 'closed' as const, closed_at: '2026-02-01T00:00:00.000Z' };

    it('are due closed_at + the retention for a closed or won petition', () => {
      for (const status of ['closed', 'victory'] as const) {
        const shown = toPetitionDetail(petitionRow({ ...closed, status }), undefined, DAYS_30);
        expect(shown).to.include({ signer_data_deletion_due_at: '2026-03-03T00:00:00.000Z', signer_data_deleted_at: null });
      }
    });

    it('are not due while the petition runs, nor with the retention off', () => {
      expect(toPetitionDetail(petitionRow(), undefined, DAYS_30).signer_data_deletion_due_at).to.equal(null);
      expect(toPetitionDetail(petitionRow(closed), undefined, null).signer_data_deletion_due_at).to.equal(null);
    });

    it('say when the details were deleted', () => {
      const deleted = '2026-03-03T01:00:00.000Z';
      expect(toPetitionDetail(petitionRow({ ...closed, signer_data_deleted_at: deleted }), undefined, DAYS_30)).to.include({ signer_data_deleted_at: deleted });
    });

    it('produce what the Petition response schema describes', () => {
      const validateDetail = addFormats(new Ajv({ strict: false })).compile(Petition);
      expect(validateDetail(toPetitionDetail(petitionRow(closed), CREATOR, DAYS_30)), JSON.stringify(validateDetail.errors)).to.equal(true);
    });
  });
});
