// The milestone claim, written once for the two statements that claim: the signing statement (the
// milestones its batch counted past) and the catch-up after a commit (those it passed unseen).
import type { FragmentSqlToken } from 'slonik';
import { insertEvent } from '../events/record-event.ts';
import { sql } from '../../db/sql.ts';

/**
 * The body of the `claimed` CTE: `reached` selects (petition_id, threshold, signature_id) from the
 * schedule aliased `m`; the primary key of petition_milestones lets exactly one claim win.
 */
export function claimMilestones(reached: FragmentSqlToken): FragmentSqlToken {
  return sql.fragment`
      INSERT INTO petition_milestones (petition_id, threshold, signature_id)
      ${reached}
      -- In one order for both statements, so that two claims wait for each other instead of deadlocking.
      ORDER BY m.petition_id, m.threshold
      ON CONFLICT ON CONSTRAINT petition_milestones_pkey DO NOTHING
      RETURNING petition_id, threshold, signature_id`;
}

/**
 * The signature.milestone event of each milestone won (the `claimed` CTE, aliased `c`); `counted` joins
 * the rows, aliased `s`, that hold each claim's signature_count and signature_goal.
 */
export function celebrateMilestones(counted: FragmentSqlToken): FragmentSqlToken {
  return insertEvent(
    {
      type: sql.fragment`'signature.milestone'`,
      actorType: sql.fragment`'system'`,
      actorId: sql.fragment`NULL`,
      petitionId: sql.fragment`c.petition_id`,
      data: sql.fragment`jsonb_build_object('petition_id', c.petition_id, 'milestone', c.threshold, 'signature_count', s.signature_count,
        'signature_goal', s.signature_goal, 'signature_id', c.signature_id)`,
    },
    sql.fragment`claimed c JOIN ${counted}`,
  );
}
