// Signing, built to hold a viral spike. Concurrent sign requests are written together (group commit,
// core/signatures/sign-batcher.ts): one read of the petitions involved, checked per request with the
// petition policy, then ONE statement (sign-statement.ts) that inserts every signature, bumps one
// counter shard per petition, claims the milestones the batch passed and writes the outbox events.
// Each request still gets its own answer: its own count, its own milestone_reached, its own 409.
//
// What the single-request design guaranteed still holds: a request is answered only after the
// statement (or its transaction) committed, so no acknowledged signature is lost; the unique index
// refuses a second signature of the same person, also when both are in one batch; the count is the
// sum of the shards, each bumped by exactly the rows inserted; the primary key of petition_milestones
// lets exactly one signature claim each milestone.
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { Actor } from '../events/record-event.ts';
import { canRead, knowsOf, type PetitionAccessFacts, type Viewer } from '../petitions/policy.ts';
import { sql } from '../../db/sql.ts';
import { Conflict, DomainError, Forbidden, NotFound } from '../errors/domain-error.ts';
import { signBatchStatement, type BatchPetition } from './sign-statement.ts';
import type { RememberAnswer } from '../idempotency/remembered-answers.ts';

export { COUNTER_SHARDS } from './sign-statement.ts';

export type SignatureInput = {
  petitionId: string;
  userId: string;
  /** The signer as the petition policy sees them (viewerOf the principal). */
  viewer: Viewer;
  /** Where the signer came from (embed, page, share:<slug>…), for the creator's traffic sources. */
  source?: string | null;
  /** Keyed hash of the signer's /24 or /64 (core/signatures/network-block.ts), for fraud investigation. */
  networkHash?: Buffer | null;
  actor: Actor;
  comment: string | null;
  isAnonymous: boolean;
  displayLocation: string | null;
  place: { city: string | null; region: string | null; country: string | null; latitude: number | null; longitude: number | null };
  referrerSlug: string | null;
  /** Needed for a private petition the signer did not create. */
  accessCode: string | null;
};

export type SignResult = { id: string; petition_id: string; user_id: string; is_anonymous: boolean; signature_count: number; milestone_reached: boolean; created_at: string };

/** A request's own answer: its signature, or the domain error it is refused with. */
export type SignAnswer = { ok: true; result: SignResult } | { ok: false; error: DomainError };

/**
 * One sign request in a batch. `withinWrite`, when given, runs inside the batch's transaction after
 * the signatures are written and before they commit, with this request's own answer: the seam for
 * work that must commit or roll back with the signature (such as storing the idempotent answer).
 * Throwing there rolls the batch back; the batch is then retried one request at a time, so only the
 * request that threw fails.
 */
export type SignRequest = { input: SignatureInput; withinWrite?: (tx: DatabaseTransactionConnection, answer: SignAnswer) => Promise<void> };

/**
 * The seam's use by the API: with an Idempotency-Key, the request's 201 commits with its signature, so
 * a retry after a connection reset (the API died between commit and answer) replays it.
 */
export function rememberedWithSignature(remember: RememberAnswer | undefined): SignRequest['withinWrite'] {
  if (!remember) return undefined;
  return async (tx, answer) => {
    if (!answer.ok) return;
    const { created_at: _createdAt, ...data } = answer.result;
    await tx.query(sql.typeAlias('void')`${remember(sql.fragment`${sql.jsonb(data)}`)}`);
  };
}

const PetitionFacts = z.object({
  id: z.string(), creator_id: z.string(), org_id: z.string().nullable(), status: z.enum(['draft', 'active', 'closed', 'victory', 'under_review']),
  visibility: z.enum(['public', 'private', 'unlisted']), access_code: z.string().nullable(), signature_goal: z.number().nullable(),
});

/** What the policy and the milestones need of the petitions a batch signs (one read per batch). */
export function petitionFactsStatement(ids: readonly string[]) {
  return sql.type(PetitionFacts)`
    SELECT id, creator_id, org_id, status, visibility, access_code, signature_goal
    FROM petitions WHERE id = ANY(${sql.array([...ids], 'uuid')}) AND deleted_at IS NULL
  `;
}

/** The petition policy's verdict on one request, before anything is written. */
function refusal(petition: (PetitionAccessFacts & { status: string }) | undefined, input: SignatureInput): DomainError | null {
  if (!petition || !knowsOf(input.viewer, petition)) return new NotFound('There is no such petition.');
  if (!canRead(input.viewer, petition, input.accessCode)) {
    return new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
  return petition.status === 'active' ? null : notActive(petition.status);
}

const notActive = (status: string) => new Conflict(`Only active petitions take signatures; this one is ${status}.`, { code: 'petition_not_active' });
const alreadySigned = () => new Conflict('You have already signed this petition.', { code: 'already_signed' });

/**
 * Signs every request of a batch in one statement and returns each request's answer, in order.
 * Throws only when the write itself failed (the caller then retries the requests one by one).
 */
export async function signBatch(db: DatabasePool, requests: readonly SignRequest[]): Promise<SignAnswer[]> {
  const petitions = new Map((await db.any(petitionFactsStatement([...new Set(requests.map((request) => request.input.petitionId))]))).map((row) => [row.id, row]));
  const answers: (SignAnswer | undefined)[] = requests.map(({ input }) => {
    const refused = refusal(petitions.get(input.petitionId), input);
    return refused ? { ok: false, error: refused } : undefined;
  });
  // The first request of a person for a petition goes to the statement; a second one in the same
  // batch is refused like any duplicate, once the first is decided.
  const writing = new Map<string, number>();
  requests.forEach(({ input }, index) => {
    const key = `${input.petitionId}/${input.userId}`;
    if (!answers[index] && !writing.has(key)) writing.set(key, index);
  });
  const toWrite = [...writing.values()];
  const involved = [...new Set(toWrite.map((index) => requests[index]!.input.petitionId))].map((id): BatchPetition => ({ id, goal: petitions.get(id)!.signature_goal }));
  const statement = signBatchStatement(toWrite.map((index) => requests[index]!.input), involved);

  const decide = (rows: readonly { signature_id: string | null; created_at: string | null; signature_count: number | null; milestone_reached: boolean; petition_status: string | null }[]) => {
    toWrite.forEach((requestIndex, row) => {
      const outcome = rows[row]!;
      const { input } = requests[requestIndex]!;
      answers[requestIndex] = outcome.signature_id && outcome.created_at && outcome.signature_count !== null
        ? { ok: true, result: { id: outcome.signature_id, petition_id: input.petitionId, user_id: input.userId, is_anonymous: input.isAnonymous, signature_count: outcome.signature_count, milestone_reached: outcome.milestone_reached, created_at: outcome.created_at } }
        // Closed (or deleted) between the policy read and the write, or signed before.
        : { ok: false, error: outcome.petition_status === 'active' ? alreadySigned() : outcome.petition_status ? notActive(outcome.petition_status) : new NotFound('There is no such petition.') };
    });
    requests.forEach(({ input }, index) => {
      const first = answers[writing.get(`${input.petitionId}/${input.userId}`)!]!;
      answers[index] ??= first.ok ? { ok: false, error: alreadySigned() } : first;
    });
    return answers as SignAnswer[];
  };

  if (!requests.some((request) => request.withinWrite)) return decide(toWrite.length > 0 ? await db.any(statement) : []);
  return db.transaction(async (tx) => {
    const decided = decide(toWrite.length > 0 ? await tx.any(statement) : []);
    for (const [index, request] of requests.entries()) await request.withinWrite?.(tx, decided[index]!);
    return decided;
  });
}
