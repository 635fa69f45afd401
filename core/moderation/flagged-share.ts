// The flagged-share alert (issue 44), run by the fraud watch every minute: a petition whose signatures flagged past a signing threshold (api/http/limits.ts)
// pass RALLY_FRAUD_FLAGGED_SHARE_ALERT of its count, and number at least RALLY_FRAUD_WATCH_MIN_SIGNATURES, raises `fraud.suspected` (subject_type
// `flagged_share`) and tells the administrators, once per petition and hour (fraud_alerts_once_per_window).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { announceFraudAlert } from './fraud-alert-announcement.ts';

export type FlaggedShareSettings = { flaggedShare: number; minSignatures: number };

const Suspect = z.object({ petition_id: z.string(), title: z.string(), flagged: z.number(), total: z.number() });

/** Raises the alert for every petition past the share this hour; answers the petitions alerted. */
export async function watchFlaggedShares(db: DatabasePool, settings: FlaggedShareSettings): Promise<string[]> {
  // Petitions flagged in the last hour (signatures_flagged_idx), their flagged and counted signatures.
  const suspects = await db.any(sql.type(Suspect)`
    SELECT p.id AS petition_id, p.title, f.flagged::int AS flagged,
      COALESCE((SELECT sum(c.count) FROM signature_counters c WHERE c.petition_id = p.id), 0)::int AS total
    FROM (SELECT DISTINCT petition_id FROM signatures WHERE flags IS NOT NULL AND created_at > now() - interval '1 hour') recent
    CROSS JOIN LATERAL (SELECT count(*) AS flagged FROM signatures s WHERE s.petition_id = recent.petition_id AND s.flags IS NOT NULL) f
    JOIN petitions p ON p.id = recent.petition_id
    WHERE f.flagged >= ${settings.minSignatures}
  `);
  const alerted: string[] = [];
  for (const suspect of suspects.filter((row) => row.total > 0 && row.flagged / row.total > settings.flaggedShare)) {
    if (await raise(db, suspect, settings)) alerted.push(suspect.petition_id);
  }
  return alerted;
}

async function raise(db: DatabasePool, suspect: z.infer<typeof Suspect>, settings: FlaggedShareSettings): Promise<boolean> {
  return db.transaction(async (tx) => {
    const alert = await tx.maybeOne(sql.type(z.object({ id: z.string(), window_start: z.string(), window_end: z.string() }))`
      INSERT INTO fraud_alerts (subject_type, subject, window_start, window_end, signatures, baseline)
      VALUES ('flagged_share', ${suspect.petition_id}, date_trunc('hour', now()), date_trunc('hour', now()) + interval '1 hour', ${suspect.flagged},
        ${suspect.total})
      ON CONFLICT ON CONSTRAINT fraud_alerts_once_per_window DO NOTHING
      RETURNING id, window_start, window_end`);
    if (!alert) return false;
    const share = Math.round((suspect.flagged / suspect.total) * 1000) / 10;
    const data = {
      alert_id: alert.id,
      subject_type: 'flagged_share',
      subject: suspect.petition_id,
      petition_id: suspect.petition_id,
      window_start: new Date(alert.window_start).toISOString(),
      window_end: new Date(alert.window_end).toISOString(),
      signatures: suspect.flagged,
      // The count the share is of; `multiple` is the share that alerts.
      baseline_per_window: suspect.total,
      multiple: settings.flaggedShare,
    };
    await announceFraudAlert(tx, {
      alertId: alert.id,
      data,
      title: `Flagged signatures: ${share} % of “${suspect.title}”`,
      body:
        `${suspect.flagged} of its ${suspect.total} signatures passed a network or email domain threshold. ` +
        'GET /v1/admin/petitions/{id}/flagged-crowds tells a crowd from a farm; invalidate or clear their flags there.',
    });
    return true;
  });
}
