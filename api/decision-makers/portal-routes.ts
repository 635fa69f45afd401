// The decision makers' portal: /respond/{token}, no login, the token in the path is the only
// credential (core/decision-makers/portal.ts): unknown 404, expired 410, answered once (201), then 409.
import { openPortal, submitPortalResponse } from '../../core/decision-makers/portal.ts';
import type { DecisionMakerDependencies } from '../../core/decision-makers/queries.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { PortalContextEnvelope, PortalParams, PortalResponseCreate, ResponseEnvelope, summarize, toResponse } from './schemas.ts';

export function createPortalRoutes({ db, workflows, publicUrl }: DecisionMakerDependencies): AnyRouteSpec[] {
  const base = { tag: 'Response portal', auth: 'none', params: PortalParams } as const;
  return [
    defineRoute({
      ...base,
      method: 'get',
      path: '/respond/:token',
      operationId: 'getResponsePortal',
      summary: 'Get what a decision maker answers',
      description: 'What the decision maker is asked to answer: the petition, its signature count, the deadline.',
      responses: { 200: { description: 'Portal context', schema: PortalContextEnvelope } },
      async handler(ctx, { params }) {
        const row = await openPortal(db, params.token);
        ctx.set('Cache-Control', 'no-store');
        sendData(ctx, {
          petition: {
            id: row.petition_id,
            slug: row.slug,
            title: row.petition_title,
            summary: summarize(row.description),
            signature_count: row.signature_count,
            status: row.status,
            url: `${publicUrl}/p/${row.slug}`,
          },
          decision_maker: { name: row.name, title: row.title },
          response_deadline: row.expires_at,
          responded_at: row.responded_at,
        });
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/respond/:token',
      operationId: 'submitDecisionMakerResponse',
      summary: 'Answer a petition as decision maker',
      description: 'Answer the petition once; emits response.submitted. The creator then decides to publish it.',
      body: PortalResponseCreate,
      responses: { 201: { description: 'The response', schema: ResponseEnvelope } },
      async handler(ctx, { params, body }) {
        const response = await submitPortalResponse(db, params.token, body);
        // Ends the expiry workflow early. Best effort: a missed signal only means the workflow finds
        // the token answered at its deadline and expires nothing.
        await workflows.responseGiven(response.tokenId);
        ctx.set('Cache-Control', 'no-store');
        sendData(ctx, toResponse(response.created), 201);
      },
    }),
  ];
}
