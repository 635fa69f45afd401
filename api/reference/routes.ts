// The API's self-description: /openapi.json, the /docs page that renders it with Scalar (served from
// node_modules, no CDN, so it works offline), and /problems/<slug>, the page every problem `type` points at.
import { Type } from '@sinclair/typebox';
import { PROBLEM_TYPES, RallyError, type ProblemSlug } from '../http/problem.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { renderProblemPage } from './pages.ts';
import { DOCS_INIT_SCRIPT, openScalarBundle, renderDocsPage } from './docs-page.ts';
import { htmlPolicies } from '../http/security-headers.ts';

const ApiIndexSchema = Type.Object({
  data: Type.Object({ name: Type.String(), version: Type.String(), documentation: Type.String(), openapi: Type.String() }),
  meta: Type.Object({ request_id: Type.String(), timestamp: Type.String({ format: 'date-time' }) }),
});

export function createReferenceRoutes(getDocument: () => Record<string, unknown>, publicUrl: string): AnyRouteSpec[] {
  const docsHtml = renderDocsPage(publicUrl);
  // Frozen: the response check then validates it once (response-check.ts).
  const index = Object.freeze({ name: 'Rally', version: '1', documentation: `${publicUrl}/docs`, openapi: `${publicUrl}/openapi.json` });
  return [
    defineRoute({
      method: 'get',
      path: '/v1',
      operationId: 'getApiIndex',
      summary: 'Get the API index',
      description: 'Where the API reference lives; answers without touching any dependency.',
      tag: 'Reference',
      auth: 'none',
      responses: { 200: { description: 'The API index', schema: ApiIndexSchema } },
      async handler(ctx) {
        sendData(ctx, index);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'Get the OpenAPI document',
      description: 'This OpenAPI 3.1 document.',
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
      browser: true,
      summary: 'The API reference, rendered from /openapi.json with try-it-out against this API',
      tag: 'Reference',
      auth: 'none',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      async handler(ctx) {
        ctx.set('Content-Security-Policy', htmlPolicies.docs(publicUrl));
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = docsHtml;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/docs-init.js',
      operationId: 'getApiReferenceScript',
      browser: true,
      summary: "The /docs page's script: mounts the renderer on the page",
      tag: 'Reference',
      auth: 'none',
      responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
      async handler(ctx) {
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = DOCS_INIT_SCRIPT;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/scalar.js',
      operationId: 'getApiReferenceRenderer',
      browser: true,
      summary: 'The renderer of /docs: the browser bundle of @scalar/api-reference, from this installation',
      tag: 'Reference',
      auth: 'none',
      responses: {
        200: { description: 'JavaScript', contentType: 'text/javascript' },
        503: { description: 'The renderer package is not installed here' },
      },
      async handler(ctx) {
        const bundle = await openScalarBundle();
        if (!bundle)
          throw new RallyError('service-unavailable', 'The API reference renderer (@scalar/api-reference) is not installed; /openapi.json has the reference.');
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = bundle;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/problems/:slug',
      operationId: 'getProblemType',
      summary: 'Explain a problem type',
      description: 'What a problem type means.',
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
