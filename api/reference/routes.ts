// The API's self-description: /openapi.json, a readable /docs page rendered from it (no CDN, so it
// works offline), and /problems/<slug>, the page every problem `type` points at.
import { Type } from '@sinclair/typebox';
import { PROBLEM_TYPES, RallyError, type ProblemSlug } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { renderDocsPage, renderProblemPage } from './pages.ts';

export function createReferenceRoutes(getDocument: () => Record<string, unknown>): AnyRouteSpec[] {
  let docsHtml: string | undefined;
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tag: 'Reference',
      auth: 'none',
      responses: { 200: { description: 'The OpenAPI document' } },
      async handler(ctx) {
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.body = getDocument();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'A readable API reference page',
      tag: 'Reference',
      auth: 'none',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      async handler(ctx) {
        docsHtml ??= renderDocsPage(getDocument());
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = docsHtml;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/problems/:slug',
      operationId: 'getProblemType',
      summary: 'What a problem type means',
      tag: 'Reference',
      auth: 'none',
      params: Type.Object({ slug: Type.String({ pattern: '^[a-z-]{2,40}$' }) }),
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      async handler(ctx, { params }) {
        const problem = PROBLEM_TYPES[params.slug as ProblemSlug];
        if (!problem) throw new RallyError('not-found', `There is no problem type named "${params.slug}".`);
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = renderProblemPage(params.slug, problem);
      },
    }),
  ];
}
