// The expected petition access matrix, written out by hand from the rules in the issue and the spec (not read from core/petitions/policy.ts): both the
// predicate test and the SQL test check against it.

export const VIEWERS = ['anonymous', 'signer', 'creator', 'platformAdmin', 'orgAdmin'] as const;
export type ViewerKind = (typeof VIEWERS)[number];

export const PETITIONS = ['draft', 'active', 'closed', 'victory', 'private', 'unlisted', 'under_review', 'deleted'] as const;
export type PetitionKind = (typeof PETITIONS)[number];

/** Status, visibility and deletion of each kind of petition in the matrix. */
export const PETITION_SHAPES: Record<
  PetitionKind,
  { status: 'draft' | 'active' | 'closed' | 'victory' | 'under_review'; visibility: 'public' | 'private' | 'unlisted'; deleted: boolean }
> = {
  draft: { status: 'draft', visibility: 'public', deleted: false },
  active: { status: 'active', visibility: 'public', deleted: false },
  closed: { status: 'closed', visibility: 'public', deleted: false },
  victory: { status: 'victory', visibility: 'public', deleted: false },
  private: { status: 'active', visibility: 'private', deleted: false },
  unlisted: { status: 'active', visibility: 'unlisted', deleted: false },
  under_review: { status: 'under_review', visibility: 'public', deleted: false },
  deleted: { status: 'active', visibility: 'public', deleted: true },
};

// Each cell lists what the viewer may do with the petition, one letter each, a dash meaning "no": K knows it
// exists (else 404); R reads it by its link without a code; C reads it with its access code; L sees it in lists
// and exports; M manages it (edit, delete, publish, updates, decision makers).
export const EXPECTED: Record<ViewerKind, Record<PetitionKind, string>> = {
  anonymous: {
    draft: '-----',
    active: 'KRCL-',
    closed: 'KRCL-',
    victory: 'KRCL-',
    private: 'K-C--',
    unlisted: 'KRC--',
    under_review: '-----',
    deleted: '-----',
  },
  // Signed in, but neither creator nor admin: the same as anyone.
  signer: { draft: '-----', active: 'KRCL-', closed: 'KRCL-', victory: 'KRCL-', private: 'K-C--', unlisted: 'KRC--', under_review: '-----', deleted: '-----' },
  creator: { draft: 'KRCLM', active: 'KRCLM', closed: 'KRCLM', victory: 'KRCLM', private: 'KRCLM', unlisted: 'KRCLM', under_review: 'KRCLM', deleted: '-----' },
  // Moderators read everything by link, but lists stay public and ownership stays with the owner.
  platformAdmin: {
    draft: 'KRC--',
    active: 'KRCL-',
    closed: 'KRCL-',
    victory: 'KRCL-',
    private: 'KRC--',
    unlisted: 'KRC--',
    under_review: 'KRC--',
    deleted: '-----',
  },
  // An admin of the organization the petition belongs to manages it like its creator.
  orgAdmin: {
    draft: 'KRCLM',
    active: 'KRCLM',
    closed: 'KRCLM',
    victory: 'KRCLM',
    private: 'KRCLM',
    unlisted: 'KRCLM',
    under_review: 'KRCLM',
    deleted: '-----',
  },
};

/**
 * Where the public page and widget show a review notice instead of a 404 page: to whoever may not
 * read a public or unlisted petition under review. Those who may read it see it as it is.
 */
export const REVIEW_NOTICE: Record<ViewerKind, readonly PetitionKind[]> = {
  anonymous: ['under_review'],
  signer: ['under_review'],
  creator: [],
  platformAdmin: [],
  orgAdmin: [],
};

export type Outcome = { knows: boolean; read: boolean; readWithCode: boolean; listed: boolean; manages: boolean };

export function outcomeCell(outcome: Outcome): string {
  return [outcome.knows ? 'K' : '-', outcome.read ? 'R' : '-', outcome.readWithCode ? 'C' : '-', outcome.listed ? 'L' : '-', outcome.manages ? 'M' : '-'].join(
    '',
  );
}

export const ACCESS_CODE = 'ABCD2345EF';
