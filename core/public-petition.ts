// What the public petition page and the embed widget show, read for a visitor who has no credentials: whether they may see the petition is the petition
// policy's decision (assertCanRead with no viewer), never a rule of its own here. Everything is read-only and bounded: the latest few responses and updates,
// the decision makers' names and titles (never their email addresses).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import { listDecisionMakers, listResponses, type ResponseRow } from './decision-makers/queries.ts';
import { MediaVariant } from './media/queries.ts';
import { ANONYMOUS, assertCanRead, showsReviewNotice } from './petitions/policy.ts';
import { findPetitionBySlug, type PetitionRow } from './petitions/queries.ts';

const LATEST_RESPONSES = 5;
const LATEST_UPDATES = 3;

export type PublicImage = { url: string; alt: string; variants: MediaVariant[] };
export type PublicUpdate = { id: string; title: string; body: string; created_at: string };
export type PublicPetition = {
  petition: PetitionRow;
  /** The processed variants behind image_url when Rally made them; an outside image_url has none. */
  image: PublicImage | null;
  decisionMakers: { name: string; title: string }[];
  responses: ResponseRow[];
  updates: PublicUpdate[];
};

const UpdateRow = z.object({ id: z.string(), title: z.string(), body: z.string(), created_at: z.string() });

function latestUpdates(db: CommonQueryMethods, petitionId: string) {
  // petition_updates_petition_recent_idx
  return db.any(sql.type(UpdateRow)`
    SELECT id, title, body, created_at FROM petition_updates
    WHERE petition_id = ${petitionId} ORDER BY created_at DESC, id DESC LIMIT ${LATEST_UPDATES}
  `);
}

/** The WebP variants of the petition's processed image (media_petition_image_idx, migration 0016). */
async function imageVariants(db: CommonQueryMethods, petition: PetitionRow): Promise<MediaVariant[]> {
  if (!petition.image_url) return [];
  const variants = await db.maybeOneFirst(sql.type(z.object({ variants: z.array(MediaVariant) }))`
    SELECT variants FROM media
    WHERE entity_type = 'petition_image' AND entity_id = ${petition.id} AND status = 'ready'
      AND variants @> ${sql.jsonb([{ url: petition.image_url }])}
    ORDER BY processed_at DESC LIMIT 1
  `);
  return [...(variants ?? [])].sort((a, b) => a.width - b.width);
}

/** What the page and widget show instead of a petition under review: that it is, and nothing of it. */
export type ReviewNotice = { notice: 'under_review'; slug: string };

/** Loads a petition as an anonymous visitor may see it; throws NotFound/Forbidden from the policy. */
export async function loadPublicPetition(db: CommonQueryMethods, slug: string, options: { details: boolean }): Promise<PublicPetition> {
  const petition = await findPetitionBySlug(db, slug);
  assertCanRead(ANONYMOUS, petition);
  return present(db, petition, options);
}

/** For the page and widget: the petition, or the review notice where the policy calls for one; else as loadPublicPetition. */
export async function loadPublicPage(db: CommonQueryMethods, slug: string, options: { details: boolean }): Promise<PublicPetition | ReviewNotice> {
  const petition = await findPetitionBySlug(db, slug);
  if (petition && showsReviewNotice(ANONYMOUS, petition)) return { notice: 'under_review', slug: petition.slug };
  assertCanRead(ANONYMOUS, petition);
  return present(db, petition, options);
}

async function present(db: CommonQueryMethods, petition: PetitionRow, options: { details: boolean }): Promise<PublicPetition> {
  const variants = await imageVariants(db, petition);
  const image = petition.image_url ? { url: petition.image_url, alt: petition.title, variants } : null;
  if (!options.details) return { petition, image, decisionMakers: [], responses: [], updates: [] };
  const [decisionMakers, responses, updates] = await Promise.all([
    listDecisionMakers(db, petition.id),
    listResponses(db, petition.id, { includeUnpublished: false, limit: LATEST_RESPONSES }),
    latestUpdates(db, petition.id),
  ]);
  return {
    petition,
    image,
    decisionMakers: decisionMakers.map((person) => ({ name: person.name, title: person.title })),
    responses: responses.slice(0, LATEST_RESPONSES),
    updates: [...updates],
  };
}
