// The fraud watch's SQL (issue 11). One window is examined in one transaction holding the watch state's row lock, so two runs never examine the same window at
// once; its signatures and unconfirmed guest signatures are counted per petition, network block (keyed hash, in hex) and email domain into fraud_watch_counts.
// Each subject past its baseline (fraud-watch-rule.ts) is raised; then the state moves past the window.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { announceFraudAlert } from './fraud-alert-announcement.ts';
import { FRAUD_SUBJECT_TYPES, type FraudSubjectType } from '../vocabulary.ts';
import { baselinePerWindow, isSuspected, type FraudWatchSettings, type Window } from './fraud-watch-rule.ts';

const STATE = 'signing-rates';
const Candidate = z.object({
  subject_type: z.enum(FRAUD_SUBJECT_TYPES),
  subject: z.string(),
  signatures: z.number(),
  baseline_total: z.number(),
  title: z.string().nullable(),
});
type Candidate = z.infer<typeof Candidate>;

const at = (ms: number) => sql.fragment`to_timestamp(${ms / 1000})`;

export async function watchedUntil(db: CommonQueryMethods): Promise<number | null> {
  const until = await db.oneFirst(sql.type(z.object({ until: z.number().nullable() }))`
    SELECT (extract(epoch FROM watched_until) * 1000)::float8 AS until FROM fraud_watch_state WHERE name = ${STATE}`);
  return until;
}

function describe(candidate: Candidate): string {
  if (candidate.subject_type === 'petition') return `the petition “${candidate.title ?? candidate.subject}”`;
  if (candidate.subject_type === 'email_domain') return `accounts at ${candidate.subject}`;
  return `one network block (${candidate.subject.slice(0, 12)}…)`;
}

// One fraud_alerts row (unique per subject and window), one `fraud.suspected` outbox event (for platform-wide
// webhooks; no petition_id, so a suspect petition's own creator is not told) and an in-app notification to
// every active platform administrator.
async function raise(tx: CommonQueryMethods, candidate: Candidate, window: Window, settings: FraudWatchSettings): Promise<boolean> {
  const baseline = baselinePerWindow(candidate.baseline_total, settings);
  const alertId = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO fraud_alerts (subject_type, subject, window_start, window_end, signatures, baseline)
    VALUES (${candidate.subject_type}, ${candidate.subject}, ${at(window.start)}, ${at(window.end)}, ${candidate.signatures}, ${baseline})
    ON CONFLICT ON CONSTRAINT fraud_alerts_once_per_window DO NOTHING
    RETURNING id`);
  if (!alertId) return false;
  const data = {
    alert_id: alertId,
    subject_type: candidate.subject_type,
    subject: candidate.subject,
    petition_id: candidate.subject_type === 'petition' ? candidate.subject : null,
    window_start: new Date(window.start).toISOString(),
    window_end: new Date(window.end).toISOString(),
    signatures: candidate.signatures,
    baseline_per_window: Math.round(baseline * 100) / 100,
    multiple: settings.multiple,
  };
  await announceFraudAlert(tx, {
    alertId,
    data,
    title: `Signing rate jump: ${describe(candidate)}`,
    body:
      `${candidate.signatures} signatures in ${(settings.windowMs / 60_000).toLocaleString('en-US')} min, ` +
      `against ${data.baseline_per_window} in an average window. ` +
      'Review them; POST /v1/admin/petitions/{id}/invalidate-signatures can take fraudulent ones off.',
  });
  return true;
}

/** Examines one window (skipped when an earlier run already did); answers the alerts it raised. */
export async function watchWindow(
  db: DatabasePool,
  window: Window,
  settings: FraudWatchSettings,
): Promise<{ subject_type: FraudSubjectType; subject: string }[]> {
  return db.transaction(async (tx) => {
    const done = await tx.oneFirst(sql.type(z.object({ done: z.boolean() }))`
      SELECT COALESCE(watched_until >= ${at(window.end)}, false) AS done FROM fraud_watch_state WHERE name = ${STATE} FOR UPDATE`);
    if (done) return [];
    // signatures_recent_idx and guest_signatures_created_idx (created_at) bound the scans to the window.
    // Guest signatures not confirmed (yet) count too: a farm of addresses shows before, or without, its clicks.
    await tx.query(sql.typeAlias('void')`
      INSERT INTO fraud_watch_counts AS counts (subject_type, subject, window_start, signatures)
      SELECT s.subject_type, s.subject, ${at(window.start)}, count(*)
      FROM (
        SELECT petition_id, network_hash, email_key FROM signatures WHERE created_at >= ${at(window.start)} AND created_at < ${at(window.end)}
        UNION ALL
        SELECT petition_id, network_hash, email_key FROM guest_signatures
        WHERE created_at >= ${at(window.start)} AND created_at < ${at(window.end)} AND status <> 'confirmed'
      ) sig
      CROSS JOIN LATERAL (VALUES ('petition', sig.petition_id::text), ('network_block', encode(sig.network_hash, 'hex')),
        ('email_domain', NULLIF(split_part(sig.email_key, '@', 2), ''))) AS s(subject_type, subject)
      WHERE s.subject IS NOT NULL
      GROUP BY s.subject_type, s.subject
      -- A subject seen once adds nearly nothing to a baseline and is most of the rows (one block per signer): not kept.
      HAVING count(*) > 1
      ON CONFLICT ON CONSTRAINT fraud_watch_counts_pkey DO UPDATE SET signatures = EXCLUDED.signatures
    `);
    const candidates = await tx.any(sql.type(Candidate)`
      SELECT c.subject_type, c.subject, c.signatures,
        COALESCE((SELECT sum(b.signatures) FROM fraud_watch_counts b WHERE b.subject_type = c.subject_type AND b.subject = c.subject
          AND b.window_start >= ${at(window.start - settings.baselineMs)} AND b.window_start < ${at(window.start)}), 0)::int AS baseline_total,
        CASE WHEN c.subject_type = 'petition' THEN (SELECT p.title FROM petitions p WHERE p.id = c.subject::uuid) END AS title
      FROM fraud_watch_counts c
      WHERE c.window_start = ${at(window.start)} AND c.signatures >= ${settings.minSignatures}
    `);
    const raised: { subject_type: FraudSubjectType; subject: string }[] = [];
    for (const candidate of candidates) {
      if (isSuspected(candidate.signatures, candidate.baseline_total, settings) && (await raise(tx, candidate, window, settings))) {
        raised.push({ subject_type: candidate.subject_type, subject: candidate.subject });
      }
    }
    await tx.query(sql.typeAlias('void')`DELETE FROM fraud_watch_counts WHERE window_start < ${at(window.start - settings.baselineMs)}`);
    await tx.query(sql.typeAlias('void')`UPDATE fraud_watch_state SET watched_until = ${at(window.end)} WHERE name = ${STATE}`);
    return raised;
  });
}
