// The one rule of what search, suggestions and public statistics may show: a petition that is
// publicly listed (public visibility, not deleted, and active, closed or victory; never a draft,
// one under review, a private or an unlisted one). Fixed on purpose, whoever asks: it is not the
// per-viewer read rule of core/petitions/policy.ts. The partial indexes of migration 0015 repeat
// this exact predicate, so keep the two in step.
import { sql } from '../../db/sql.ts';
import type { PetitionStatus } from '../vocabulary.ts';

export const PUBLICLY_LISTED_STATUSES = ['active', 'closed', 'victory'] as const satisfies readonly PetitionStatus[];
export type PubliclyListedStatus = (typeof PUBLICLY_LISTED_STATUSES)[number];

/** For any query `FROM petitions p`. */
export const PUBLICLY_LISTED = sql.fragment`(p.deleted_at IS NULL AND p.visibility = 'public' AND p.status IN ('active', 'closed', 'victory'))`;
