// The decision makers' portal: the token in the link is the only credential. An unknown token is
// NotFound, an expired one Gone (expired by its workflow, or past its deadline should the workflow
// be late); a token answers once, then Conflict.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Conflict, ensure, Gone, NotFound } from '../errors/domain-error.ts';
import { recordEvent } from '../events/record-event.ts';
import { hashPortalToken, looksLikePortalToken } from './portal-tokens.ts';
import { toResponse } from './presenter.ts';
import { insertResponse } from './queries.ts';

const PortalRow = z.object({
  token_id: z.string(),
  expires_at: z.string(),
  responded_at: z.string().nullable(),
  expired: z.boolean(),
  decision_maker_id: z.string(),
  name: z.string(),
  title: z.string(),
  petition_id: z.string(),
  slug: z.string(),
  petition_title: z.string(),
  description: z.string(),
  status: z.string(),
  signature_count: z.number(),
});
export type PortalRow = z.infer<typeof PortalRow>;

// The hash alone finds the token: the raw token exists only in the email, so a link works the moment its
// email arrives, before the sender has recorded it as sent; a retried send replaces the hash, and the
// earlier link then finds nothing.
async function findByToken(db: CommonQueryMethods, raw: string, options: { lock?: boolean } = {}) {
  const row = looksLikePortalToken(raw)
    ? await db.maybeOne(sql.type(PortalRow)`
        SELECT t.id AS token_id, t.expires_at, t.responded_at, (t.expired_at IS NOT NULL OR t.expires_at <= now()) AS expired,
          d.id AS decision_maker_id, d.name, d.title, p.id AS petition_id, p.slug, p.title AS petition_title, p.description, p.status,
          (SELECT coalesce(sum(count), 0) FROM signature_counters WHERE petition_id = p.id)::bigint AS signature_count
        FROM response_tokens t
        JOIN petition_decision_makers d ON d.id = t.decision_maker_id
        JOIN petitions p ON p.id = t.petition_id AND p.deleted_at IS NULL
        WHERE t.token_hash = ${sql.binary(hashPortalToken(raw))}
        ${options.lock ? sql.fragment`FOR UPDATE OF t` : sql.fragment``}
      `)
    : null;
  ensure(row, NotFound, 'This response link is not known. Check that it was copied whole.', { code: 'unknown_token' });
  ensure(!row.expired, Gone, 'This response link has expired.', { code: 'token_expired' });
  return row;
}

/** What the portal shows; the first look marks the invitation viewed. */
export async function openPortal(db: DatabasePool, rawToken: string): Promise<PortalRow> {
  const row = await findByToken(db, rawToken);
  await db.query(sql.typeAlias('void')`
    UPDATE petition_decision_makers SET delivery_status = 'viewed', viewed_at = COALESCE(viewed_at, now())
    WHERE id = ${row.decision_maker_id} AND delivery_status = 'sent'
  `);
  return row;
}

/** Records the one response a token allows and emits response.submitted, in one transaction. */
export async function submitPortalResponse(db: DatabasePool, rawToken: string, answer: { status: string; body: string }) {
  return db.transaction(async (tx) => {
    const row = await findByToken(tx, rawToken, { lock: true });
    if (row.responded_at) throw new Conflict('A response was already given through this link.', { code: 'already_responded' });
    const created = await insertResponse(tx, {
      tokenId: row.token_id,
      status: answer.status,
      body: answer.body,
      decisionMaker: { id: row.decision_maker_id, petition_id: row.petition_id, name: row.name, title: row.title },
    });
    await tx.query(sql.typeAlias('void')`UPDATE response_tokens SET responded_at = now() WHERE id = ${row.token_id}`);
    await tx.query(sql.typeAlias('void')`
      UPDATE petition_decision_makers SET delivery_status = 'responded', responded_at = now() WHERE id = ${row.decision_maker_id}
    `);
    await recordEvent(tx, {
      type: 'response.submitted',
      actor: { type: 'decision_maker', id: row.decision_maker_id },
      petitionId: row.petition_id,
      data: toResponse(created),
    });
    return { created, tokenId: row.token_id };
  });
}
