// The parts of one operation in the document, from its route declaration: parameters (each
// described), the request body and every answer (named schemas, an example each, the headers the API
// really sends, the Problem on every error), who may call it, and a description of its contract.
import type { TSchema } from '@sinclair/typebox';
import { appScopeCovers, OAUTH_SCOPE_CATALOG, SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
import type { AnyRouteSpec, RateLimitClass } from '../http/route.ts';
import type { createComponentSchemas } from './component-schemas.ts';
import { parameterDescription } from './parameter-descriptions.ts';
import { headersOf, type createSharedResponses } from './shared-responses.ts';
import { checkedExample } from './schema-examples.ts';

type Components = ReturnType<typeof createComponentSchemas>;
type SharedResponses = ReturnType<typeof createSharedResponses>;

/** TypeBox schemas carry symbol keys; a JSON round trip leaves plain JSON Schema. */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);

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
        example: checkedExample(parameter, `${route.operationId} parameter ${name}`, name),
      });
    }
  }
  return list;
}

export function requestBody(route: AnyRouteSpec, components: Components) {
  if (route.requestContent) {
    // A body the handler reads itself: each media type it takes, a schema for a structured one.
    const content = Object.entries(route.requestContent).map(([mediaType, declared]) => {
      const schema = plain(declared);
      if (schema.type === 'string') return [mediaType, { schema }];
      return [mediaType, { schema: components.checkedDefine(`${pascal(route.operationId)}Request`, schema, `${route.operationId} body`) }];
    });
    return { required: true, content: Object.fromEntries(content) };
  }
  if (!route.body) return undefined;
  const schema = plain(route.body);
  return {
    required: true,
    content: {
      'application/json': {
        schema: components.checkedDefine(`${pascal(route.operationId)}Request`, schema, `${route.operationId} body`),
      },
    },
    'x-rally-body-limit': route.bodyLimit,
  };
}

export function operationResponses(route: AnyRouteSpec, components: Components, shared: SharedResponses) {
  const result: Record<string, object> = {};
  const declared = { ...route.responses } as Record<string, { description: string; schema?: TSchema; contentType?: string }>;
  // An error the route answers in its own form (an HTML page, an OAuth error) may still come as a
  // problem from the layers before its handler (a malformed path, a body too large): both are listed.
  const problemToo = (status: string) => (Number(status) >= 400 ? shared.problemContent(Number(status)) : {});
  for (const [status, response] of Object.entries(declared)) {
    const headers = headersOf(route, status);
    if (response.schema) {
      const schema = plain(response.schema);
      const name = `${pascal(route.operationId)}${status === '200' || status === '201' ? '' : status}Response`;
      const content = { schema: components.checkedDefine(name, schema, `${route.operationId} ${status}`) };
      result[status] = {
        description: response.description,
        headers,
        content: { [response.contentType ?? 'application/json']: content, ...problemToo(status) },
      };
    } else if (response.contentType) {
      const text = response.contentType.startsWith('text/');
      const content = {
        schema: { type: 'string', ...(text ? {} : { contentMediaType: response.contentType }) },
        // A page's start; a CSV's columns differ by export, so it has none rather than a wrong one.
        example: response.contentType === 'text/html' ? '<!doctype html>…' : undefined,
      };
      result[status] = { description: response.description, headers, content: { [response.contentType]: content, ...problemToo(status) } };
    } else if (Number(status) >= 400) {
      result[status] = { description: response.description, headers, content: shared.problemContent(Number(status)) };
    } else {
      result[status] = { description: response.description, headers };
    }
  }
  // Every charged route can answer 429; it is listed with its Retry-After so clients know to wait.
  if ((route.rateLimit ?? 'default') !== 'none' && !declared['429']) result['429'] = shared.shared(route, '429');
  // A route that succeeds only by redirecting has no 2xx to generate a client type from: every
  // answer not listed is a problem, which `default` says in one entry.
  if (!Object.keys(route.responses).some((status) => status.startsWith('2'))) return { ...result, default: shared.shared(route, 'default') };
  return { ...result, '4XX': shared.shared(route, '4XX'), '5XX': shared.shared(route, '5XX') };
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
