// The statement that writes a batch of signatures, in one round trip and atomically: the signatures, one counter shard per petition, each signature's count,
// the milestones passed and the outbox events. Statuses are checked again here (a petition closed since the policy read takes no signature), and only a signer
// whose email address is verified is written (sign.ts says who may sign).
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { insertEvent } from '../events/record-event.ts';
import { prepared, sql, unnestRows } from '../../db/sql.ts';
import { uuidV7 } from '../../platform/uuid-v7.ts';
import { celebrateMilestones, claimMilestones } from './milestone-claim.ts';
import { MILESTONE_LOOKBACK, milestonesFor } from './milestones.ts';
import type { SignatureInput } from './signature-input.ts';

export const COUNTER_SHARDS = 16;

/** A petition the batch signs: its goal decides its milestones. */
export type BatchPetition = { id: string; goal: number | null };

/** One row per signature written, in the order given. */
export const BatchOutcome = z.object({
  ordinal: z.number(),
  signature_id: z.string().nullable(),
  created_at: z.string().nullable(),
  signature_count: z.number().nullable(),
  milestone_reached: z.boolean(),
  /** The petition's status as the statement saw it (null: deleted), to explain a row not inserted. */
  petition_status: z.string().nullable(),
  /** Whether the signer's email address is verified: only such a signer's row is inserted (who may sign, sign.ts). */
  signer_verified: z.boolean(),
});
export type BatchOutcome = z.infer<typeof BatchOutcome>;

// Every signature is keyed by a UUIDv7 made here (time-ordered: appended to the primary key's index), in
// (petition, user) order so that two batches wait for each other instead of deadlocking, ON CONFLICT DO
// NOTHING: the unique index decides who had signed already. One counter shard per petition, picked at random
// and bumped by the rows inserted, so thousands of signers of one petition do not queue on one row (the count
// is the sum of the shards). Each signature's count: the shards as this statement sees them plus its rank in
// the batch. The milestones the batch passed (looking back MILESTONE_LOOKBACK, since under concurrent signing a
// count can be a few short) are each claimed by the first signature that reached it; the primary key of
// petition_milestones lets exactly one claim win (those above the batch's own counts reached through batches
// written meanwhile are claimed after the commit, by milestone-catch-up.ts). The outbox events
// (signature.created per signature, signature.milestone per milestone won) go through THE outbox insert of
// core/events; no NOTIFY (the API wakes the dispatcher per batch: live-feed.ts).
export function signBatchStatement(inputs: readonly SignatureInput[], petitions: readonly BatchPetition[]) {
  const schedule = petitions.flatMap((petition) => milestonesFor(petition.goal).map((threshold) => [petition.id, threshold] as const));
  return prepared(
    'rally_sign_batch',
    sql.type(BatchOutcome)`
    WITH input AS (
      SELECT * FROM ${unnestRows(inputs, 'i', {
        ordinal: ['int4', (_, index) => index],
        signature_id: ['uuid', () => uuidV7()],
        petition_id: ['uuid', (input) => input.petitionId],
        user_id: ['uuid', (input) => input.userId],
        comment: ['text', (input) => input.comment],
        is_anonymous: ['bool', (input) => input.isAnonymous],
        display_location: ['text', (input) => input.displayLocation],
        city: ['text', (input) => input.place.city],
        region: ['text', (input) => input.place.region],
        country: ['text', (input) => input.place.country],
        latitude: ['float8', (input) => input.place.latitude],
        longitude: ['float8', (input) => input.place.longitude],
        referrer_slug: ['text', (input) => input.referrerSlug],
        source: ['text', (input) => input.source ?? null],
        actor_type: ['text', (input) => input.actor.type],
        actor_id: ['text', (input) => input.actor.id],
        network_hash_hex: ['text', (input) => input.networkHash?.toString('hex') ?? null],
        // One text per row (unnest flattens arrays of arrays): the flags joined by commas, or null.
        flags_text: ['text', (input) => (input.flags?.length ? input.flags.join(',') : null)],
      })}
    ), involved AS (
      SELECT * FROM ${unnestRows(petitions, 'b', {
        petition_id: ['uuid', (petition) => petition.id],
        shard: ['int2', () => randomInt(COUNTER_SHARDS)],
        signature_goal: ['int8', (petition) => petition.goal],
      })}
    ), schedule AS (
      SELECT * FROM ${unnestRows(schedule, 'm', { petition_id: ['uuid', ([id]) => id], threshold: ['int8', ([, threshold]) => threshold] })}
    ), live AS (
      SELECT p.id, p.status FROM petitions p JOIN involved b ON b.petition_id = p.id WHERE p.deleted_at IS NULL
    ), signers AS (
      -- Every signer of the batch at once: whether they may sign, and their normalised address (kept on users).
      SELECT u.id, u.email_verified, u.email_key FROM users u WHERE u.id IN (SELECT user_id FROM input)
    ), signed AS (
      INSERT INTO signatures (id, petition_id, user_id, comment, is_anonymous, display_location, city, region, country, latitude, longitude, referrer_id,
        source, email_key, network_hash, flags)
      SELECT i.signature_id, i.petition_id, i.user_id, i.comment, i.is_anonymous, i.display_location, i.city, i.region, i.country, i.latitude, i.longitude,
        r.id, i.source, u.email_key, decode(i.network_hash_hex, 'hex'), string_to_array(i.flags_text, ',')
      FROM input i JOIN live ON live.id = i.petition_id AND live.status = 'active'
        JOIN signers u ON u.id = i.user_id AND u.email_verified
        -- A share link's sharer (slugs are unique), unless it is the signer's own link.
        LEFT JOIN users r ON r.slug = i.referrer_slug AND r.id <> i.user_id
      ORDER BY i.petition_id, i.user_id
      ON CONFLICT ON CONSTRAINT signatures_one_per_user DO NOTHING
      RETURNING id, petition_id, user_id, created_at
    ), counted_before AS (
      -- The shards as this statement's snapshot sees them: without its own additions below.
      SELECT b.petition_id, b.signature_goal, COALESCE(sum(c.count), 0) AS total
      FROM involved b LEFT JOIN signature_counters c ON c.petition_id = b.petition_id GROUP BY b.petition_id, b.signature_goal
    ), ranked AS (
      SELECT s.id, s.petition_id, s.created_at, i.ordinal, i.user_id, i.is_anonymous, i.comment, i.actor_type, i.actor_id, b.signature_goal,
        b.total + row_number() OVER (PARTITION BY s.petition_id ORDER BY i.ordinal) AS signature_count
      FROM signed s JOIN input i ON i.petition_id = s.petition_id AND i.user_id = s.user_id JOIN counted_before b ON b.petition_id = s.petition_id
    ), counted AS (
      INSERT INTO signature_counters (petition_id, shard, count)
      SELECT b.petition_id, b.shard, added.n FROM involved b JOIN (SELECT petition_id, count(*) AS n FROM signed GROUP BY petition_id) added USING (petition_id)
      ORDER BY b.petition_id
      ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count + EXCLUDED.count
    ), claimed AS (
      ${claimMilestones(sql.fragment`
      SELECT m.petition_id, m.threshold,
        (SELECT r.id FROM ranked r WHERE r.petition_id = m.petition_id AND r.signature_count >= m.threshold ORDER BY r.signature_count LIMIT 1)
      FROM schedule m JOIN (SELECT petition_id, min(signature_count) AS low, max(signature_count) AS high
      FROM ranked GROUP BY petition_id) reached USING (petition_id)
      WHERE m.threshold <= reached.high AND m.threshold > reached.low - ${MILESTONE_LOOKBACK}`)}
    ), announced AS (
      ${insertEvent(
        {
          type: sql.fragment`'signature.created'`,
          actorType: sql.fragment`r.actor_type`,
          actorId: sql.fragment`r.actor_id`,
          petitionId: sql.fragment`r.petition_id`,
          data: sql.fragment`jsonb_build_object('id', r.id, 'petition_id', r.petition_id, 'user_id', CASE WHEN r.is_anonymous THEN NULL ELSE r.user_id END,
            'is_anonymous', r.is_anonymous, 'comment', r.comment, 'created_at', r.created_at)`,
        },
        sql.fragment`ranked r`,
      )}
    ), celebrated AS (
      ${celebrateMilestones(sql.fragment`ranked s ON s.id = c.signature_id`)}
    )
    SELECT i.ordinal, r.id AS signature_id, r.created_at, r.signature_count::bigint AS signature_count,
      EXISTS (SELECT 1 FROM claimed c WHERE c.signature_id = r.id) AS milestone_reached, live.status AS petition_status,
      COALESCE(u.email_verified, false) AS signer_verified
    FROM input i LEFT JOIN ranked r ON r.ordinal = i.ordinal LEFT JOIN live ON live.id = i.petition_id LEFT JOIN signers u ON u.id = i.user_id
    ORDER BY i.ordinal
  `,
  );
}
