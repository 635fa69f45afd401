// The milestones a batch passed without seeing: concurrent batches cannot see each other's signatures before they commit (two starting at 30 each count their
// own rows as 31, 32, …), so a threshold between what they counted and the real count is claimed by neither statement. After its commit each batch reads the
// count again (READ COMMITTED: a new snapshot) and claims each milestone above what it counted and at most the count it now sees.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { NOTIFY_DISPATCHER } from '../events/record-event.ts';
import { sql, unnestRows } from '../../db/sql.ts';
import { celebrateMilestones, claimMilestones } from './milestone-claim.ts';
import { milestonesFor } from './milestones.ts';

/** A petition a batch signed: the batch's highest count, the signature that has it, and the goal. */
export type CaughtUpPetition = { id: string; goal: number | null; highest: number; signatureId: string };

export const CaughtUpClaim = z.object({ signature_id: z.string(), threshold: z.number(), signature_count: z.number() });
export type CaughtUpClaim = z.infer<typeof CaughtUpClaim>;

/** The milestones the batch may have passed unseen: those above its highest count. */
function pending(petitions: readonly CaughtUpPetition[]) {
  return petitions.flatMap((petition) =>
    milestonesFor(petition.goal)
      .filter((threshold) => threshold > petition.highest)
      .map((threshold) => [petition, threshold] as const),
  );
}

const Counted = z.object({ petition_id: z.string(), total: z.number() });

/**
 * Claims, after the batch's commit, the milestones the batch passed unseen. Usually there are none:
 * a plain read of the shards says so, and only a batch that finds one runs the claiming statement.
 * Why no milestone is missed: take a threshold t and the first commit X after which the petition holds t
 * signatures. X's snapshot was taken before X committed, when the petition held fewer than t, so X counted its
 * own rows from below t. Either X counted up to t (its statement claimed t, or found it claimed: the window of
 * MILESTONE_LOOKBACK reaches back past X's lowest count), or X counted short of t: then its catch-up, begun
 * after X's commit, sees at least t and claims it. In particular the batch that commits last sees the final
 * count, as every other batch committed before it did. The primary key of petition_milestones keeps each claim
 * to one, whichever of the racing batches wins. A process killed between a commit and its catch-up leaves a
 * threshold to the lookback of the next batches, as before.
 */
export async function catchUpMilestones(connection: CommonQueryMethods, petitions: readonly CaughtUpPetition[]): Promise<readonly CaughtUpClaim[]> {
  const candidates = pending(petitions);
  if (candidates.length === 0) return [];
  const counts = new Map(
    (
      await connection.any(sql.type(Counted)`
    SELECT petition_id, COALESCE(sum(count), 0)::bigint AS total FROM signature_counters
    WHERE petition_id = ANY(${sql.array([...new Set(candidates.map(([petition]) => petition.id))], 'uuid')}) GROUP BY petition_id
  `)
    ).map((row) => [row.petition_id, row.total]),
  );
  const due = candidates.filter(([petition, threshold]) => threshold <= (counts.get(petition.id) ?? 0));
  return due.length === 0 ? [] : claim(connection, due);
}

/**
 * Claims the milestones found reached, checking again against what its own snapshot holds.
 * The claim is credited to the batch's last signature of the petition: it is among the signatures that were
 * committed when the count was seen to reach the threshold, and its request learns it won.
 */
function claim(connection: CommonQueryMethods, due: ReturnType<typeof pending>): Promise<readonly CaughtUpClaim[]> {
  const involved = [...new Set(due.map(([petition]) => petition))];
  return connection.any(sql.type(CaughtUpClaim)`
    WITH batch AS (
      SELECT * FROM ${unnestRows(involved, 'b', {
        petition_id: ['uuid', (petition) => petition.id],
        signature_id: ['uuid', (petition) => petition.signatureId],
        signature_goal: ['int8', (petition) => petition.goal],
      })}
    ), due AS (
      SELECT * FROM ${unnestRows(due, 'm', { petition_id: ['uuid', ([petition]) => petition.id], threshold: ['int8', ([, threshold]) => threshold] })}
    ), seen AS (
      SELECT b.petition_id, b.signature_id, b.signature_goal, COALESCE(sum(c.count), 0)::bigint AS signature_count
      FROM batch b LEFT JOIN signature_counters c ON c.petition_id = b.petition_id GROUP BY b.petition_id, b.signature_id, b.signature_goal
    ), claimed AS (
      ${claimMilestones(sql.fragment`
      SELECT m.petition_id, m.threshold, s.signature_id FROM due m JOIN seen s USING (petition_id) WHERE m.threshold <= s.signature_count`)}
    ), celebrated AS (
      ${celebrateMilestones(sql.fragment`seen s USING (petition_id)`)}
    ), notified AS (
      SELECT ${NOTIFY_DISPATCHER} WHERE EXISTS (SELECT 1 FROM celebrated)
    )
    SELECT c.signature_id, c.threshold, s.signature_count
    FROM claimed c JOIN seen s USING (petition_id)
    -- Reads the wake-up, which a SELECT in WITH only runs when read.
    WHERE (SELECT count(*) FROM notified) >= 0
  `);
}
