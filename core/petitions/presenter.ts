// How a petition row is shown: the access code only to its creator; a petition's own answer also
// says when its signers' details were or will be deleted (RALLY_SIGNER_DATA_RETENTION).
import { signerDataDates } from './signer-data-dates.ts';
import type { PetitionRow } from './queries.ts';

export function toPetitionSummary(row: PetitionRow, viewerId: string | undefined) {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    status: row.status,
    signature_count: row.live_signature_count,
    signature_goal: row.signature_goal,
    image_url: row.image_url,
    category: row.category,
    creator: row.creator,
    org_id: row.org_id,
    tags: row.tags,
    visibility: row.visibility,
    signature_privacy: row.signature_privacy,
    location: { city: row.location_city, region: row.location_region, country: row.location_country },
    victory_message: row.victory_message,
    ...(viewerId === row.creator_id && row.access_code ? { access_code: row.access_code } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    published_at: row.published_at,
    closed_at: row.closed_at,
  };
}

/** One petition's own answer: the summary and its signer-data dates (retentionMs null: retention off). */
export function toPetitionDetail(row: PetitionRow, viewerId: string | undefined, retentionMs: number | null) {
  return { ...toPetitionSummary(row, viewerId), ...signerDataDates(row, retentionMs) };
}
