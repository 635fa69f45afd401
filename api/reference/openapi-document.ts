// Builds the OpenAPI 3.1 document from the same route declarations that drive validation: each operation from its route (operation-parts.ts), named schemas
// (component-schemas.ts), the shared headers and parameters, the security schemes with every OAuth scope (core/auth/scopes.ts), and the webhook events
// (webhook-events.ts). `npm run openapi` writes it to openapi.json.
import { OAUTH_SCOPE_CATALOG, SCOPE_DESCRIPTIONS, SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
import { PROBLEM_TYPES } from '../http/problem.ts';
import { openApiPath, type AnyRouteSpec } from '../http/route.ts';
import { createComponentSchemas } from './component-schemas.ts';
import { operationDescription, operationParameters, operationResponses, operationSecurity, requestBody } from './operation-parts.ts';
import { FieldErrorSchema, ProblemSchema } from './problem-schema.ts';
import { annotateComponents } from './schema-annotations.ts';
import { describeSchemas } from './schema-descriptions.ts';
import { shareParameters } from './shared-parameters.ts';
import { createSharedResponses, shareResponses } from './shared-responses.ts';
import { WEBHOOK_HEADERS, webhookEvents } from './webhook-events.ts';

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];
const integer = { type: 'integer', minimum: 0 };
const HEADERS = {
  XRequestId: { description: 'The request id (yours, if you sent a valid X-Request-Id); quote it when reporting a problem.', schema: { type: 'string' } },
  XApiVersion: { description: 'The API version: 1.', schema: { type: 'string', const: '1' } },
  XRateLimitLimit: { description: "The size of the caller's general budget (requests).", schema: integer },
  XRateLimitRemaining: { description: 'Requests left in the budget now.', schema: integer },
  XRateLimitReset: { description: 'When the budget is full again (Unix seconds).', schema: integer },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  ETag: { description: 'A weak validator of the data; send it as If-None-Match to get 304 while it is current.', schema: { type: 'string' } },
  IdempotentReplayed: {
    description: 'true when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', const: 'true' },
  },
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Retries with the same key replay the first answer for 24 h (an answer that showed a secret is not replayed: 409 idempotency_secret_not_replayable).',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: '0b9f3c52-5f1e-4a43-9c1d-2f6e8a7b4c10',
};

function securitySchemes(publicUrl: string) {
  const scopes = Object.fromEntries(Object.entries(OAUTH_SCOPE_CATALOG).map(([scope, grant]) => [scope, grant.description]));
  return {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token (JWT) from /v1/auth/login or OAuth, or an API key.' },
    apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Deprecated: send the key as a Bearer token.' },
    oauth2: {
      type: 'oauth2',
      description:
        'Third-party apps: the authorization-code flow with PKCE (S256), or client credentials for a confidential app ' +
        "(a token for the app's owner within their standing authorization, or for public reads when the app has no owner). " +
        'The access token is then sent as a Bearer token.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${publicUrl}/oauth/authorize`,
          tokenUrl: `${publicUrl}/oauth/token`,
          refreshUrl: `${publicUrl}/oauth/token`,
          scopes,
        },
        // The same scopes: a client_credentials request gets those of the app's registration it asks for.
        clientCredentials: { tokenUrl: `${publicUrl}/oauth/token`, scopes },
      },
    },
  };
}

const SIGNATURE = '9f2c4e7a1b3d5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4';
const WEBHOOK_HEADER_EXAMPLES: Record<keyof typeof WEBHOOK_HEADERS, string> = {
  'X-Rally-Signature': `sha256=${SIGNATURE}`,
  'X-Rally-Signature-V2': `t=1777627800,v1=${SIGNATURE}`,
  'X-Rally-Signature-Previous': `sha256=${SIGNATURE.split('').reverse().join('')}`,
  'X-Rally-Event': 'signature.created',
  'X-Rally-Delivery-Id': '8a6e0f4b-2c1d-4e9f-b3a7-5d6c7e8f9a0b',
  'X-Rally-Timestamp': '2026-05-01T09:30:00.000Z',
};

/** The `webhooks` section, and the description of each event's payload schema by its component name. */
function webhooks(components: ReturnType<typeof createComponentSchemas>) {
  const payloads: Record<string, string> = {};
  const headers = (Object.entries(WEBHOOK_HEADERS) as [keyof typeof WEBHOOK_HEADERS, string][]).map(([name, description]) => ({
    name,
    in: 'header',
    required: name !== 'X-Rally-Signature-Previous',
    description,
    schema: { type: 'string' },
    example: WEBHOOK_HEADER_EXAMPLES[name],
  }));
  const entries = webhookEvents().map(({ type, title, summary, payload, subscribable }) => {
    const schema = JSON.parse(JSON.stringify(payload)) as object;
    const name = `${type.replace(/(^|[._])([a-z])/g, (_match, _separator, letter: string) => letter.toUpperCase())}Event`;
    payloads[name] = `The body of a \`${type}\` delivery: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}.`;
    const operation = {
      operationId: `on${name}`,
      summary: title,
      description:
        `${summary}. ` +
        (subscribable ? `Sent as a POST to every active endpoint subscribed to \`${type}\`; ` : 'Not subscribable: sent as a POST to the one endpoint; ') +
        'answer 2xx within 10 seconds, or it is retried with exponential backoff (5 retries).',
      tags: ['Webhook events'],
      parameters: headers,
      requestBody: { required: true, content: { 'application/json': { schema: components.checkedDefine(name, schema, type) } } },
      responses: { '200': { description: 'Any 2xx: received. Any other answer, or none within 10 seconds, is a failed attempt.' } },
      security: [],
      // Read by test/api/openapi-webhooks.test.ts: POST /v1/webhooks takes every other name, and refuses this one.
      ...(subscribable ? {} : { 'x-rally-subscribable': false }),
    };
    // Keyed by the event name exactly as POST /v1/webhooks takes it (test/api/openapi-contract.test.ts).
    return [type, { post: operation }];
  });
  return { hooks: Object.fromEntries(entries), payloads };
}

/** The introduction of the reference: what the API is, how to authenticate, what each API key scope grants. */
function infoDescription(): string {
  const scopes = Object.entries(SCOPE_PERMISSIONS).map(
    ([scope, permissions]) => `| \`${scope}\` | ${permissions.join(', ')} | ${SCOPE_DESCRIPTIONS[scope as keyof typeof SCOPE_DESCRIPTIONS]} |`,
  );
  return [
    'Petitions, signatures, comments, decision-maker responses and signed webhooks. Every response carries X-API-Version: 1.',
    'Errors are RFC 9457 problems (`application/problem+json`); each `type` links to its explanation under /problems/.',
    '## Authentication and API key scopes',
    'Send `Authorization: Bearer <access token or API key>`. Each operation names the permission it needs; an API key grants:',
    ['| scope | permissions | |', '|---|---|---|', ...scopes].join('\n'),
    "The `admin` permission also needs the key's owner to be an administrator. OAuth apps get the scopes of the `oauth2` scheme.",
  ].join('\n\n');
}

type BuildOptions = { publicUrl: string; version: string; servers: object[]; includeBrowserRoutes?: boolean };

export function buildOpenApiDocument(allRoutes: AnyRouteSpec[], options: BuildOptions) {
  // Rally's own pages and forms are served but are no part of the API (a fuzzer may still ask for them).
  const routes = allRoutes.filter((route) => !route.browser || options.includeBrowserRoutes);
  const components = createComponentSchemas({ Problem: ProblemSchema, FieldError: FieldErrorSchema });
  const shared = createSharedResponses(options.publicUrl);
  const paths: Record<string, Record<string, object>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const path = openApiPath(route.path);
    tags.add(route.tag);
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      description: operationDescription(route),
      tags: [route.tag],
      deprecated: route.deprecated || undefined,
      security: operationSecurity(route),
      'x-rally-permission': route.permission,
      'x-rally-oauth-scope': route.scope,
      'x-rally-rate-limit': route.rateLimit ?? 'default',
      parameters: operationParameters(route, path),
      requestBody: requestBody(route, components),
      responses: operationResponses(route, components, shared),
    };
  }
  for (const [path, methods] of Object.entries(paths)) {
    paths[path] = Object.fromEntries(Object.entries(methods).sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)));
  }
  const { hooks, payloads } = webhooks(components);
  const sorted = Object.fromEntries(Object.entries(components.components).sort(([a], [b]) => a.localeCompare(b)));
  // Described from the operations' answers before those shared become references.
  const schemas = describeSchemas(annotateComponents(sorted), paths, payloads);
  const responses = shareResponses(Object.values(paths).flatMap((methods) => Object.values(methods) as Parameters<typeof shareResponses>[0]));
  const operations = [...Object.values(paths), ...Object.values(hooks)].flatMap((methods) => Object.values(methods as object) as object[]);
  const parameters = shareParameters(operations, { IdempotencyKey: IDEMPOTENCY_KEY });
  return JSON.parse(
    JSON.stringify({
      openapi: '3.1.0',
      info: {
        title: 'Rally API',
        version: options.version,
        description: infoDescription(),
        license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
        contact: { name: 'Rally', url: `${options.publicUrl}/docs` },
      },
      servers: options.servers,
      tags: [
        ...[...tags].map((name) => ({ name, description: `Operations on ${name.toLowerCase()}.` })),
        { name: 'Webhook events', description: 'What Rally POSTs to your webhook endpoints.' },
      ].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())),
      paths,
      webhooks: hooks,
      components: {
        schemas,
        responses,
        headers: HEADERS,
        examples: shared.components().examples,
        parameters,
        securitySchemes: securitySchemes(options.publicUrl),
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
