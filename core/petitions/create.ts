// Creating a petition: the row, its decision makers, the petition.created event and the start of
// its lifecycle workflow, all or nothing. The slug comes from the title; a clash gets a suffix.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { recordEvent, type Actor } from '../events/record-event.ts';
import { Forbidden, invalidField } from '../errors/domain-error.ts';
import { organizationExists, roleIn } from '../organization-lookups.ts';
import { slugify, withFreeSlug } from '../slugs.ts';
import type { LifecycleDependencies } from './lifecycle.ts';
import { toPetitionSummary } from './presenter.ts';
import { findPetitionById, insertDecisionMakers, insertPetition } from './queries.ts';
import type { PetitionVisibility, SignaturePrivacy } from '../vocabulary.ts';

/** What a creator gives for a new petition (validated by the API's PetitionCreate schema). */
export type PetitionDraft = {
  title: string;
  description: string;
  categoryId?: string;
  tags?: string[];
  imageUrl?: string;
  signatureGoal?: number;
  visibility?: PetitionVisibility;
  locationCity?: string;
  locationRegion?: string;
  locationCountry?: string;
  signaturePrivacy?: SignaturePrivacy;
  decisionMakers?: { name: string; title: string; email: string }[];
  orgId?: string;
};

export const MAX_TAGS = 10;

/** Only members of an organization start petitions in its name. */
async function assertMayFileUnder(db: DatabasePool, orgId: string, creatorId: string): Promise<void> {
  const role = await roleIn(db, orgId, creatorId);
  if (role) return;
  if (!(await organizationExists(db, orgId))) throw invalidField('orgId', 'unknown_organization', 'There is no organization with this id.');
  throw new Forbidden('Only members of this organization may start petitions in its name.', { code: 'not_a_member' });
}

// Unambiguous characters only (no 0/O, 1/I): codes are read aloud and typed by people.
const ACCESS_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function newAccessCode(): string {
  return [...randomBytes(10)].map((byte) => ACCESS_CODE_ALPHABET[byte % ACCESS_CODE_ALPHABET.length]).join('');
}

export function assertTagLimit(tags: string[] | undefined): void {
  if (tags && tags.length > MAX_TAGS) throw invalidField('tags', 'tag_limit_exceeded', `at most ${MAX_TAGS} tags are allowed`);
}

export async function createPetition(deps: LifecycleDependencies & { db: DatabasePool }, creatorId: string, actor: Actor, body: PetitionDraft) {
  assertTagLimit(body.tags);
  if (body.orgId) await assertMayFileUnder(deps.db, body.orgId, creatorId);
  const visibility = body.visibility ?? 'public';
  return withFreeSlug(slugify(body.title), 'petitions_slug_unique', (slug) =>
    deps.db.transaction(async (tx) => {
      const id = await insertPetition(tx, {
        slug,
        title: body.title,
        description: body.description,
        creatorId,
        orgId: body.orgId ?? null,
        categoryId: body.categoryId ?? null,
        tags: [...new Set(body.tags ?? [])],
        imageUrl: body.imageUrl ?? null,
        signatureGoal: body.signatureGoal ?? null,
        visibility,
        accessCode: visibility === 'private' ? newAccessCode() : null,
        locationCity: body.locationCity ?? null,
        locationRegion: body.locationRegion ?? null,
        locationCountry: body.locationCountry ?? null,
        signaturePrivacy: body.signaturePrivacy ?? 'public',
      });
      await insertDecisionMakers(tx, id, body.decisionMakers ?? []);
      const petition = (await findPetitionById(tx, id))!;
      await recordEvent(tx, { type: 'petition.created', actor, petitionId: id, data: toPetitionSummary(petition, undefined) });
      // Last, so that a failed start rolls the petition back rather than leaving it without a workflow.
      await deps.workflows.startPetition(id, body.title);
      return petition;
    }),
  );
}
