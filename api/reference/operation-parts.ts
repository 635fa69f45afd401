// The parts of one operation in the document, from its route declaration: parameters (each
// described), the request body and every answer (named schemas, an example each, the headers the API
// really sends, the Problem on every error), who may call it, and a description of its contract.
import type { TSchema } from '@sinclair/typebox';
import { appScopeCovers, OAUTH_SCOPE_CATALOG, SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
import type { AnyRouteSpec, RateLimitClass } from '../http/route.ts';
import type { createComponentSchemas } from './component-schemas.ts';
import { parameterDescription } from './parameter-descriptions.ts';
import { problemExample } from './problem-schema.ts';
import { checkedExample } from './schema-examples.ts';

type Components = ReturnType<typeof createComponentSchemas>;

/** TypeBox schemas carry symbol keys; a JSON round trip leaves plain JSON Schema. */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export function operationParameters(route: AnyRouteSpec, path: string): object[] {
  const list: object[] = [];
  if (route.idempotent ?? route.method === 'post') list.push({ $ref: '#/components/parameters/IdempotencyKey' });
  for (const location of ['params', 'query'] as const) {
    const schema = route[location] as { properties?: Record<string, TSchema>; required?: string[] } | undefined;
    for (const [name, property] of Object.entries(schema?.properties ?? {})) {
      const where = location === 'params' ? 'path' : 'query';
      const description = parameterDescription(path, where, name, (property as { description?: string }).description);
      if (!description) throw new Error(`${route.operationId}: the ${where} parameter "${name}" has no description (api/reference/parameter-descriptions.ts)`);
      const parameter = plain(property);
      list.push({
        name,
        in: where,
        // A query parameter with a default may be left out: the validator fills it in.
        required: location === 'params' || ((schema?.required ?? []).includes(name) && parameter.default === undefined),
        description,
        schema: parameter,
        example: checkedExample(parameter, `${route.operationId} parameter ${name}`),
      });
    }
  }
  return list;
}

export function requestBody(route: AnyRouteSpec, components: Components) {
  if (!route.body) return undefined;
  const schema = plain(route.body);
  return {
    required: true,
    content: {
      'application/json': {
        schema: components.define(`${pascal(route.operationId)}Request`, schema),
        example: checkedExample(schema, `${route.operationId} body`),
      },
    },
    'x-rally-body-limit': route.bodyLimit,
  };
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('XRateLimitLimit'),
  'X-RateLimit-Remaining': header('XRateLimitRemaining'),
  'X-RateLimit-Reset': header('XRateLimitReset'),
};

/** The headers of an answer with this status: the ones every answer has, and those the route's contract adds. */
function headersOf(route: AnyRouteSpec, status: string): Record<string, object> {
  const headers: Record<string, object> = { 'X-Request-Id': header('XRequestId'), 'X-API-Version': header('XApiVersion') };
  if ((route.rateLimit ?? 'default') !== 'none') Object.assign(headers, RATE_LIMIT_HEADERS);
  if (status === '429' || status === '503') headers['Retry-After'] = header('RetryAfter');
  if (status === '200' && 304 in route.responses) headers.ETag = header('ETag');
  if (status.startsWith('2') && (route.idempotent ?? route.method === 'post')) headers['Idempotent-Replayed'] = header('IdempotentReplayed');
  return headers;
}

const problemContent = (route: AnyRouteSpec, path: string, status: number, publicUrl: string) => ({
  'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example: problemExample(status, path, publicUrl) },
});

export function operationResponses(route: AnyRouteSpec, path: string, components: Components, publicUrl: string) {
  const result: Record<string, object> = {};
  const declared = { ...route.responses } as Record<string, { description: string; schema?: TSchema; contentType?: string }>;
  // Every charged route can answer 429; it is listed with its Retry-After so clients know to wait.
  if ((route.rateLimit ?? 'default') !== 'none' && !declared['429']) declared['429'] = { description: 'Too many requests: wait Retry-After seconds' };
  // An error the route answers in its own form (an HTML page, an OAuth error) may still come as a
  // problem from the layers before its handler (a malformed path, a body too large): both are listed.
  const problemToo = (status: string) => (Number(status) >= 400 ? problemContent(route, path, Number(status), publicUrl) : {});
  for (const [status, response] of Object.entries(declared)) {
    const headers = headersOf(route, status);
    if (response.schema) {
      const schema = plain(response.schema);
      const name = `${pascal(route.operationId)}${status === '200' || status === '201' ? '' : status}Response`;
      const content = { schema: components.define(name, schema), example: checkedExample(schema, `${route.operationId} ${status}`) };
      result[status] = {
        description: response.description,
        headers,
        content: { [response.contentType ?? 'application/json']: content, ...problemToo(status) },
      };
    } else if (response.contentType) {
      const text = response.contentType.startsWith('text/');
      const content = {
        schema: { type: 'string', ...(text ? {} : { contentMediaType: response.contentType }) },
        example: text ? '<!doctype html>…' : undefined,
      };
      result[status] = { description: response.description, headers, content: { [response.contentType]: content, ...problemToo(status) } };
    } else if (Number(status) >= 400) {
      result[status] = { description: response.description, headers, content: problemContent(route, path, Number(status), publicUrl) };
    } else {
      result[status] = { description: response.description, headers };
    }
  }
  const problems = { description: 'Any answer not listed above is a problem', content: problemContent(route, path, 400, publicUrl) };
  // A route that succeeds only by redirecting (a browser form post) has no 2xx to generate a client
  // type from: every answer not listed is a problem, which `default` says in one entry.
  if (!Object.keys(route.responses).some((status) => status.startsWith('2'))) return { ...result, default: problems };
  result['4XX'] = { description: 'A problem caused by the request', headers: headersOf(route, '4XX'), content: problemContent(route, path, 400, publicUrl) };
  result['5XX'] = { description: 'A problem on our side', headers: headersOf(route, '5XX'), content: problemContent(route, path, 500, publicUrl) };
  return result;
}

/** The OAuth scopes that reach the route: any one of them (the route's `scope`, or a scope that implies it; core/auth/scopes.ts decides). */
export function oauthScopesOf(route: AnyRouteSpec): string[] {
  return Object.keys(OAUTH_SCOPE_CATALOG).filter((scope) => appScopeCovers([scope], route.scope));
}

export function operationSecurity(route: AnyRouteSpec): object[] {
  if (route.auth === 'none') return [];
  const credentials = [{ bearerAuth: [] }, { apiKeyHeader: [] }, ...oauthScopesOf(route).map((scope) => ({ oauth2: [scope] }))];
  return route.auth === 'optional' ? [{}, ...credentials] : credentials;
}

const RATE_LIMITS: Record<RateLimitClass, string> = {
  default: "the caller's general budget",
  sign: "the caller's general budget and the client address's signing budget (RALLY_SIGN_LIMIT_PER_HOUR)",
  export: "the caller's general budget and its export budget (10 a minute)",
  report: "the caller's general budget and its reporting budget",
  none: 'nothing (not rate limited)',
};

/** The operation's description: what it does, then the contract its declaration enforces. */
export function operationDescription(route: AnyRouteSpec): string {
  const lines = [route.description ?? `${route.summary}.`];
  const auth = { none: 'none', optional: 'optional (credentials change the answer)', required: 'required' }[route.auth];
  lines.push(`**Authentication:** ${auth}.`);
  if (route.permission) {
    const keyScopes = Object.entries(SCOPE_PERMISSIONS).filter(([, permissions]) => permissions.includes(route.permission!));
    const oauth = oauthScopesOf(route);
    lines.push(
      `**Permission:** \`${route.permission}\` (API key scopes ${keyScopes.map(([scope]) => `\`${scope}\``).join(', ')}; ` +
        (oauth.length ? `OAuth scopes ${oauth.map((scope) => `\`${scope}\``).join(', ')}).` : 'not open to OAuth apps).'),
    );
  }
  lines.push(`**Rate limit:** charged to ${RATE_LIMITS[route.rateLimit ?? 'default']}.`);
  if (route.idempotent ?? route.method === 'post')
    lines.push('**Idempotency:** send an `Idempotency-Key` to retry safely; a replayed answer carries `Idempotent-Replayed: true`.');
  return lines.join('\n\n');
}
