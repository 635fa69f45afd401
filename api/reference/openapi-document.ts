// Builds the OpenAPI 3.1 document from the same route declarations that drive validation.
import type { TSchema } from '@sinclair/typebox';
import { SCOPE_DESCRIPTIONS, SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
import { PROBLEM_TYPES } from '../http/problem.ts';
import { openApiPath, type AnyRouteSpec } from '../http/route.ts';

const ProblemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'message', 'instance'],
  properties: {
    type: { type: 'string', format: 'uri', description: 'PUBLIC_URL/problems/<slug>; the page explains the slug.' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', description: 'Stable machine-readable code.' },
    detail: { type: 'string', deprecated: true },
    message: { type: 'string' },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Only on 422.',
      items: {
        type: 'object',
        required: ['field', 'message', 'code'],
        properties: {
          field: { type: 'string' },
          message: { type: 'string' },
          code: { type: 'string', examples: ['required', 'invalid_type', 'too_small', 'too_big', 'invalid_format', 'invalid_enum', 'unknown_field'] },
        },
      },
    },
  },
} as const;

/** TypeBox schemas carry symbol keys; a JSON round trip leaves plain JSON Schema. */
function plain(schema: TSchema): object {
  return JSON.parse(JSON.stringify(schema)) as object;
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Retries with the same key replay the first answer for 24 h (an answer that showed a secret is not replayed: 409 idempotency_secret_not_replayable).',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function parameters(route: AnyRouteSpec) {
  const list: object[] = [];
  if (route.idempotent ?? route.method === 'post') list.push(IDEMPOTENCY_KEY);
  for (const location of ['params', 'query'] as const) {
    const schema = route[location] as { properties?: Record<string, TSchema>; required?: string[] } | undefined;
    for (const [name, property] of Object.entries(schema?.properties ?? {})) {
      list.push({
        name,
        in: location === 'params' ? 'path' : 'query',
        required: location === 'params' || (schema?.required ?? []).includes(name),
        description: (property as { description?: string }).description,
        schema: plain(property),
      });
    }
  }
  return list;
}

function responses(route: AnyRouteSpec) {
  const result: Record<string, object> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    result[status] = response.schema
      ? { description: response.description, content: { [response.contentType ?? 'application/json']: { schema: plain(response.schema) } } }
      : { description: response.description };
  }
  const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  // A route that succeeds only by redirecting (a browser form post) has no 2xx to generate a client
  // type from: every answer not listed is a problem, which `default` says in one entry.
  if (!Object.keys(route.responses).some((status) => status.startsWith('2'))) {
    result.default = { description: 'Any answer not listed above is a problem', content: problem };
    return result;
  }
  result['4XX'] = { description: 'A problem caused by the request', content: problem };
  result['5XX'] = { description: 'A problem on our side', content: problem };
  return result;
}

export function buildOpenApiDocument(routes: AnyRouteSpec[], options: { publicUrl: string; version: string }) {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      deprecated: route.deprecated || undefined,
      security: route.auth === 'required' ? [{ bearerAuth: [] }, { apiKeyHeader: [] }] : route.auth === 'optional' ? [{}, { bearerAuth: [] }] : [],
      'x-rally-permission': route.permission,
      'x-rally-oauth-scope': route.scope,
      'x-rally-rate-limit': route.rateLimit ?? 'default',
      parameters: parameters(route),
      requestBody: route.body
        ? { required: true, content: { 'application/json': { schema: plain(route.body) } }, 'x-rally-body-limit': route.bodyLimit }
        : undefined,
      responses: responses(route),
    };
  }
  return JSON.parse(
    JSON.stringify({
      openapi: '3.1.0',
      info: {
        title: 'Rally API',
        version: options.version,
        description: 'Petitions, signatures, comments, decision-maker responses and signed webhooks. Every response carries X-API-Version: 1.',
        license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
      },
      // This installation itself (PUBLIC_URL), so a client generated from the served document calls it.
      servers: [{ url: options.publicUrl, description: 'This Rally installation' }],
      paths,
      components: {
        schemas: { Problem: ProblemSchema },
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token (JWT) from /v1/auth/login or OAuth, or an API key.' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Deprecated: send the key as a Bearer token.' },
        },
      },
      // The API key scope table: which route permissions (x-rally-permission) each scope grants.
      'x-rally-api-key-scopes': Object.fromEntries(
        Object.entries(SCOPE_PERMISSIONS).map(([scope, permissions]) => [
          scope,
          { permissions, description: SCOPE_DESCRIPTIONS[scope as keyof typeof SCOPE_DESCRIPTIONS] },
        ]),
      ),
      'x-problem-types': Object.fromEntries(Object.entries(PROBLEM_TYPES).map(([slug, type]) => [slug, { status: type.status, title: type.title }])),
    }),
  ) as Record<string, unknown>;
}
