// The one rule of what search, suggestions and public statistics may show: a petition that is publicly listed (public visibility, not deleted, and published;
// never a draft, one under review, a private or an unlisted one). Fixed on purpose, whoever asks: it is the list rule of core/petitions/visibility.ts for an
// anonymous viewer. The partial indexes of migration 0015 repeat this exact predicate, so keep the two in step.
import { ANONYMOUS, listedTo } from '../petitions/policy.ts';
import { PUBLISHED_PETITION_STATUSES, type PublishedPetitionStatus } from '../vocabulary.ts';

export const PUBLICLY_LISTED_STATUSES = PUBLISHED_PETITION_STATUSES;
export type PubliclyListedStatus = PublishedPetitionStatus;

/** For any query `FROM petitions p`. */
export const PUBLICLY_LISTED = listedTo(ANONYMOUS);
