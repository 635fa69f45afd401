// SQL for decision makers, their portal tokens and their responses, and the managers-only check
// every decision-maker route makes.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { Forbidden, NotFound, ensure } from '../errors/domain-error.ts';
import { canManage, type Viewer } from '../petitions/policy.ts';
import { findPetitionAccess } from '../petitions/queries.ts';

/**
 * The decision makers' workflows (started by orchestration/): the invitation email, and the expiry
 * of a portal token, which a response ends early and a removal cancels. The last two are best
 * effort: a missed one only means the expiry finds the token answered or gone and changes nothing.
 */
export type DecisionMakerWorkflows = {
  inviteDecisionMaker(petitionId: string, decisionMakerId: string): Promise<void>;
  responseGiven(tokenId: string): Promise<void>;
  responseTokenWithdrawn(tokenId: string): Promise<void>;
};

export type DecisionMakerDependencies = { db: DatabasePool; workflows: DecisionMakerWorkflows; publicUrl: string };

export const DecisionMakerRow = z.object({
  id: z.string().uuid(),
  petition_id: z.string().uuid(),
  name: z.string(),
  title: z.string(),
  email: z.string(),
  delivery_status: z.enum(['pending', 'sent', 'failed', 'viewed', 'responded', 'expired']),
  delivery_error: z.string().nullable(),
  invited_at: z.string().nullable(),
  viewed_at: z.string().nullable(),
  responded_at: z.string().nullable(),
  expired_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});
export type DecisionMakerRow = z.infer<typeof DecisionMakerRow>;

const DECISION_MAKER_SELECT = sql.fragment`
  SELECT d.id, d.petition_id, d.name, d.title, d.email, d.delivery_status, d.delivery_error, d.invited_at, d.viewed_at,
    d.responded_at, d.expired_at, t.expires_at, d.created_at
  FROM petition_decision_makers d LEFT JOIN response_tokens t ON t.decision_maker_id = d.id`;

export const ResponseRow = z.object({
  id: z.string().uuid(),
  petition_id: z.string().uuid(),
  decision_maker_id: z.string().uuid().nullable(),
  decision_maker_name: z.string(),
  decision_maker_title: z.string(),
  status: z.enum(['acknowledged', 'supportive', 'opposed', 'neutral']),
  body: z.string(),
  created_at: z.string(),
  published_at: z.string().nullable(),
});
export type ResponseRow = z.infer<typeof ResponseRow>;
const RESPONSE_COLUMNS = sql.fragment`id, petition_id, decision_maker_id, decision_maker_name, decision_maker_title, status, body, created_at, published_at`;

/** Those who manage the petition only (core/petitions/policy.ts); 404 when there is no such petition, 403 for anyone else. */
export async function assertCreator(db: CommonQueryMethods, viewer: Viewer, petitionId: string, options: { lock?: boolean } = {}) {
  const petition = await findPetitionAccess(db, petitionId, options);
  ensure(petition, NotFound, `There is no petition ${petitionId}.`);
  ensure(canManage(viewer, petition), Forbidden, 'Only the creator of this petition may do this.', { code: 'not_owner' });
  return petition;
}

export function listDecisionMakers(db: CommonQueryMethods, petitionId: string) {
  return db.any(sql.type(DecisionMakerRow)`${DECISION_MAKER_SELECT} WHERE d.petition_id = ${petitionId} ORDER BY d.created_at, d.id`);
}

export function countDecisionMakers(db: CommonQueryMethods, petitionId: string) {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM petition_decision_makers WHERE petition_id = ${petitionId}`);
}

export async function insertDecisionMaker(db: CommonQueryMethods, petitionId: string, person: { name: string; title: string; email: string }) {
  const id = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petition_decision_makers (petition_id, name, title, email) VALUES (${petitionId}, ${person.name}, ${person.title}, ${person.email})
    RETURNING id
  `);
  return db.one(sql.type(DecisionMakerRow)`${DECISION_MAKER_SELECT} WHERE d.id = ${id}`);
}

/** Deletes the decision maker (and so their token); returns the token's id, if one was issued. */
export async function deleteDecisionMaker(db: CommonQueryMethods, petitionId: string, id: string) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), token_id: z.string().nullable() }))`
    DELETE FROM petition_decision_makers d WHERE d.id = ${id} AND d.petition_id = ${petitionId}
    RETURNING d.id, (SELECT t.id FROM response_tokens t WHERE t.decision_maker_id = d.id) AS token_id
  `);
}

export function listResponses(
  db: CommonQueryMethods,
  petitionId: string,
  options: { includeUnpublished: boolean; after?: readonly [string, string]; limit: number },
) {
  const keyset = keysetPage(recencyKey(), options.after, 'desc', options.limit);
  return db.any(sql.type(ResponseRow)`
    SELECT ${RESPONSE_COLUMNS} FROM decision_maker_responses
    WHERE petition_id = ${petitionId}
      ${options.includeUnpublished ? sql.fragment`` : sql.fragment`AND published_at IS NOT NULL`}
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

export function findResponse(db: CommonQueryMethods, petitionId: string, id: string) {
  return db.maybeOne(
    sql.type(ResponseRow)`SELECT ${RESPONSE_COLUMNS} FROM decision_maker_responses WHERE id = ${id} AND petition_id = ${petitionId} FOR UPDATE`,
  );
}

export function markResponsePublished(db: CommonQueryMethods, id: string) {
  return db.one(sql.type(ResponseRow)`UPDATE decision_maker_responses SET published_at = now() WHERE id = ${id} RETURNING ${RESPONSE_COLUMNS}`);
}

export function insertResponse(
  db: CommonQueryMethods,
  input: { tokenId: string; decisionMaker: { id: string; petition_id: string; name: string; title: string }; status: string; body: string },
) {
  return db.one(sql.type(ResponseRow)`
    INSERT INTO decision_maker_responses (petition_id, decision_maker_id, token_id, decision_maker_name, decision_maker_title, status, body)
    VALUES (${input.decisionMaker.petition_id}, ${input.decisionMaker.id}, ${input.tokenId},
    ${input.decisionMaker.name}, ${input.decisionMaker.title}, ${input.status}, ${input.body})
    RETURNING ${RESPONSE_COLUMNS}
  `);
}
