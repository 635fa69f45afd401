// The decision makers' portal: /respond/{token}, no login, the token in the path is the only
// credential. An unknown token is a 404, an expired one a 410 (expired by its workflow, or past its
// deadline should the workflow be late); a token answers once (201), then 409.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { recordEvent } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { respondedSignal, responseTokenWorkflowId } from '../../workflows/index.ts';
import { sendData } from '../http/context.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { hashPortalToken, looksLikePortalToken } from '../../core/decision-makers/portal-tokens.ts';
import { insertResponse, type DecisionMakerDependencies } from '../../core/decision-makers/queries.ts';
import { PortalContextEnvelope, PortalParams, PortalResponseCreate, ResponseEnvelope, summarize, toResponse } from './schemas.ts';

const PortalRow = z.object({
  token_id: z.string(), expires_at: z.string(), responded_at: z.string().nullable(), expired: z.boolean(),
  decision_maker_id: z.string(), name: z.string(), title: z.string(),
  petition_id: z.string(), slug: z.string(), petition_title: z.string(), description: z.string(), status: z.string(), signature_count: z.number(),
});

async function findByToken(db: CommonQueryMethods, raw: string, options: { lock?: boolean } = {}) {
  const row = looksLikePortalToken(raw)
    ? await db.maybeOne(sql.type(PortalRow)`
        SELECT t.id AS token_id, t.expires_at, t.responded_at, (t.expired_at IS NOT NULL OR t.expires_at <= now()) AS expired,
          d.id AS decision_maker_id, d.name, d.title, p.id AS petition_id, p.slug, p.title AS petition_title, p.description, p.status,
          (SELECT coalesce(sum(count), 0) FROM signature_counters WHERE petition_id = p.id)::bigint AS signature_count
        FROM response_tokens t
        JOIN petition_decision_makers d ON d.id = t.decision_maker_id
        JOIN petitions p ON p.id = t.petition_id AND p.deleted_at IS NULL
        WHERE t.token_hash = ${sql.binary(hashPortalToken(raw))} AND t.sent_at IS NOT NULL
        ${options.lock ? sql.fragment`FOR UPDATE OF t` : sql.fragment``}
      `)
    : null;
  assertThat(row, 'not-found', 'This response link is not known. Check that it was copied whole.', { code: 'unknown_token' });
  assertThat(!row.expired, 'gone', 'This response link has expired.', { code: 'token_expired' });
  return row;
}

export function createPortalRoutes({ db, temporal, publicUrl }: DecisionMakerDependencies): AnyRouteSpec[] {
  const base = { tag: 'Response portal', auth: 'none', params: PortalParams } as const;
  return [
    defineRoute({
      ...base, method: 'get', path: '/respond/:token', operationId: 'getResponsePortal',
      summary: 'What the decision maker is asked to answer: the petition, its signature count, the deadline',
      responses: { 200: { description: 'Portal context', schema: PortalContextEnvelope } },
      async handler(ctx, { params }) {
        const row = await findByToken(db, params.token);
        await db.query(sql.typeAlias('void')`
          UPDATE petition_decision_makers SET delivery_status = 'viewed', viewed_at = COALESCE(viewed_at, now())
          WHERE id = ${row.decision_maker_id} AND delivery_status = 'sent'
        `);
        ctx.set('Cache-Control', 'no-store');
        sendData(ctx, {
          petition: { id: row.petition_id, slug: row.slug, title: row.petition_title, summary: summarize(row.description), signature_count: row.signature_count, status: row.status, url: `${publicUrl}/p/${row.slug}` },
          decision_maker: { name: row.name, title: row.title },
          response_deadline: row.expires_at,
          responded_at: row.responded_at,
        });
      },
    }),
    defineRoute({
      ...base, method: 'post', path: '/respond/:token', operationId: 'submitDecisionMakerResponse',
      summary: 'Answer the petition once; emits response.submitted. The creator then decides to publish it',
      body: PortalResponseCreate,
      responses: { 201: { description: 'The response', schema: ResponseEnvelope } },
      async handler(ctx, { params, body }) {
        const response = await db.transaction(async (tx) => {
          const row = await findByToken(tx, params.token, { lock: true });
          if (row.responded_at) throw new RallyError('conflict', 'A response was already given through this link.', { code: 'already_responded' });
          const created = await insertResponse(tx, {
            tokenId: row.token_id, status: body.status, body: body.body,
            decisionMaker: { id: row.decision_maker_id, petition_id: row.petition_id, name: row.name, title: row.title },
          });
          await tx.query(sql.typeAlias('void')`UPDATE response_tokens SET responded_at = now() WHERE id = ${row.token_id}`);
          await tx.query(sql.typeAlias('void')`
            UPDATE petition_decision_makers SET delivery_status = 'responded', responded_at = now() WHERE id = ${row.decision_maker_id}
          `);
          await recordEvent(tx, { type: 'response.submitted', actor: { type: 'decision_maker', id: row.decision_maker_id }, petitionId: row.petition_id, data: toResponse(created) });
          return { created, tokenId: row.token_id };
        });
        // Ends the expiry workflow early. Best effort: a missed signal only means the workflow finds
        // the token answered at its deadline and expires nothing.
        await temporal.workflow.getHandle(responseTokenWorkflowId(response.tokenId)).signal(respondedSignal).catch(() => undefined);
        ctx.set('Cache-Control', 'no-store');
        sendData(ctx, toResponse(response.created), 201);
      },
    }),
  ];
}
