// Signing, built to hold a viral spike on one petition. The signature, its share of the count, its
// outbox event and the dispatcher's wake-up are one SQL statement (one round trip, atomic): the uniqueness check is the unique
// index, and the count lives in 16 counter shards picked at random, so thousands of signers of the
// same petition do not queue on one row. Milestones are claimed by inserting into a table whose
// primary key lets exactly one signature win each one.
import { randomInt } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { insertEvent, NOTIFY_DISPATCHER, recordEvent, type Actor } from '../events/record-event.ts';
import { knownTo, visibleTo, type Viewer } from '../petitions/policy.ts';
import { sql } from '../../db/sql.ts';
import { Conflict, Forbidden, NotFound } from '../errors/domain-error.ts';
import { milestonesToClaim } from './milestones.ts';
import type { RememberAnswer } from '../idempotency/remembered-answers.ts';

export const COUNTER_SHARDS = 16;

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
  /** Stores the request's Idempotency-Key answer in the signing statement itself (core/idempotency). */
  rememberAnswer?: RememberAnswer;
};

const SignOutcome = z.object({
  status: z.string().nullable(),
  known: z.boolean(),
  readable: z.boolean(),
  signature_goal: z.number().nullable(),
  signature_id: z.string().nullable(),
  created_at: z.string().nullable(),
  signature_count: z.number(),
  notified: z.number(),
});

export type SignResult = { id: string; petition_id: string; user_id: string; is_anonymous: boolean; signature_count: number; milestone_reached: boolean; created_at: string };

// Every CTE sees the counters as they were before the statement, so the new signature is added.
const COUNT_AFTER_SIGNING = sql.fragment`(COALESCE((SELECT sum(sc.count) FROM signature_counters sc, input WHERE sc.petition_id = input.petition_id), 0) + (SELECT count(*) FROM signed))::bigint`;

/**
 * The signing statement itself (signature, counter shard, outbox event; one round trip). Exported so
 * that `npm run bench` can drive exactly this SQL directly as the raw reference for the API's rate.
 */
export function signStatement(input: SignatureInput, shard: number = randomInt(COUNTER_SHARDS)) {
  const { place } = input;
  return sql.type(SignOutcome)`
    WITH input AS (
      -- Every parameter once, typed: PostgreSQL cannot infer types through the CTEs below.
      SELECT ${input.petitionId}::uuid AS petition_id, ${input.userId}::uuid AS user_id, ${input.comment}::text AS comment,
        ${input.isAnonymous}::boolean AS is_anonymous, ${input.displayLocation}::text AS display_location, ${place.city}::text AS city,
        ${place.region}::text AS region, ${place.country}::text AS country, ${place.latitude}::float8 AS latitude,
        ${place.longitude}::float8 AS longitude, ${input.referrerSlug}::text AS referrer_slug, ${input.source ?? null}::text AS source, ${shard}::smallint AS shard,
        ${input.actor.type}::text AS actor_type, ${input.actor.id}::text AS actor_id,
        ${input.networkHash ? sql.binary(input.networkHash) : null}::bytea AS network_hash
    ), petition AS (
      -- The read rules of core/petitions/policy.ts, here so that signing needs no separate lookup.
      SELECT p.id, p.status, p.signature_goal, COALESCE(${knownTo(input.viewer)}, false) AS known,
        COALESCE(${visibleTo(input.viewer, input.accessCode)}, false) AS readable
      FROM petitions p, input WHERE p.id = input.petition_id AND p.deleted_at IS NULL
    ), signed AS (
      INSERT INTO signatures (petition_id, user_id, comment, is_anonymous, display_location, city, region, country, latitude, longitude, referrer_id, source,
        email_key, network_hash)
      SELECT petition.id, input.user_id, input.comment, input.is_anonymous, input.display_location, input.city, input.region, input.country,
        input.latitude, input.longitude, (SELECT u.id FROM users u WHERE u.slug = input.referrer_slug AND u.id <> input.user_id), input.source,
        (SELECT rally_email_key(u.email) FROM users u WHERE u.id = input.user_id), input.network_hash
      FROM petition, input WHERE petition.status = 'active' AND petition.readable
      ON CONFLICT ON CONSTRAINT signatures_one_per_user DO NOTHING
      RETURNING id, created_at
    ), counted AS (
      INSERT INTO signature_counters (petition_id, shard, count)
      SELECT input.petition_id, input.shard, 1 FROM signed, input
      ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count + 1
      RETURNING 1
    ), announced AS (
      ${insertEvent(
        {
          type: sql.fragment`'signature.created'`, actorType: sql.fragment`input.actor_type`, actorId: sql.fragment`input.actor_id`, petitionId: sql.fragment`input.petition_id`,
          data: sql.fragment`jsonb_build_object('id', signed.id, 'petition_id', input.petition_id, 'user_id', CASE WHEN input.is_anonymous THEN NULL ELSE input.user_id END,
            'is_anonymous', input.is_anonymous, 'comment', input.comment, 'created_at', signed.created_at)`,
        },
        sql.fragment`signed, input`,
      )}
    ), remembered AS (
      -- With an Idempotency-Key, the 201 commits with the signature: a retry after a reset connection replays it.
      ${input.rememberAnswer
        ? input.rememberAnswer(sql.fragment`(SELECT jsonb_build_object('id', signed.id, 'petition_id', input.petition_id, 'user_id', input.user_id,
            'is_anonymous', input.is_anonymous, 'signature_count', ${COUNT_AFTER_SIGNING}, 'milestone_reached', false) FROM signed, input)`)
        : sql.fragment`SELECT`}
    ), notified AS (
      -- Wakes the outbox dispatcher at commit instead of leaving signature.created to its next poll.
      SELECT ${NOTIFY_DISPATCHER} FROM announced
    )
    SELECT (SELECT status FROM petition) AS status, (SELECT signature_goal FROM petition) AS signature_goal,
      COALESCE((SELECT known FROM petition), false) AS known, COALESCE((SELECT readable FROM petition), false) AS readable,
      (SELECT count(*) FROM notified)::int AS notified,
      (SELECT id FROM signed) AS signature_id, (SELECT created_at FROM signed) AS created_at,
      ${COUNT_AFTER_SIGNING} AS signature_count
  `;
}

export async function signPetition(db: DatabasePool, input: SignatureInput): Promise<SignResult> {
  const outcome = await db.one(signStatement(input));

  if (outcome.status === null || !outcome.known) throw new NotFound('There is no such petition.');
  if (!outcome.readable) {
    throw new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
  if (outcome.status !== 'active') {
    throw new Conflict(`Only active petitions take signatures; this one is ${outcome.status}.`, { code: 'petition_not_active' });
  }
  if (!outcome.signature_id || !outcome.created_at) throw new Conflict('You have already signed this petition.', { code: 'already_signed' });

  const claimed = await claimMilestones(db, input, outcome.signature_id, outcome.signature_count, outcome.signature_goal);
  return {
    id: outcome.signature_id, petition_id: input.petitionId, user_id: input.userId, is_anonymous: input.isAnonymous,
    signature_count: outcome.signature_count, milestone_reached: claimed.length > 0, created_at: outcome.created_at,
  };
}

async function claimMilestones(db: DatabasePool, input: SignatureInput, signatureId: string, count: number, goal: number | null): Promise<number[]> {
  const candidates = milestonesToClaim(count, goal);
  if (candidates.length === 0) return [];
  return db.transaction(async (tx) => {
    const won = await tx.anyFirst(sql.type(z.object({ threshold: z.number() }))`
      INSERT INTO petition_milestones (petition_id, threshold, signature_id)
      SELECT ${input.petitionId}, threshold, ${signatureId} FROM unnest(${sql.array(candidates, 'int8')}) AS threshold
      ON CONFLICT ON CONSTRAINT petition_milestones_pkey DO NOTHING
      RETURNING threshold
    `);
    for (const threshold of won) {
      await recordEvent(tx, {
        type: 'signature.milestone', actor: { type: 'system', id: null }, petitionId: input.petitionId,
        data: { petition_id: input.petitionId, milestone: threshold, signature_count: count, signature_goal: goal, signature_id: signatureId },
      });
    }
    return [...won];
  });
}
