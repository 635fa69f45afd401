// A route is declared once, and the declaration is its whole contract: method, path, who may call it, its rate limit, whether Idempotency-Key applies, its body
// size, and the JSON Schemas of its parts and answers. It drives the route guard, the Ajv validators, the handler's types and the OpenAPI document, and answers
// are checked against it (response-check.ts), so none of them can drift apart.
import type { Static, TSchema } from '@sinclair/typebox';
import type { Middleware } from 'koa';
import type { RallyContext, RallyState } from './context.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `none`: public; `optional`: credentials change the answer; `required`: 401 without them. */
export type AuthRequirement = 'none' | 'optional' | 'required';

import type { Permission } from '../../core/auth/principal.ts';
import type { RouteScope } from '../../core/auth/scopes.ts';

export type { Permission };

export type ResponseSpec = { description: string; schema?: TSchema; contentType?: string };

/**
 * Which rate limit a request is charged to, besides nothing (`none`, for probes). Every other class
 * spends from the caller's general bucket; `sign` also from the client address's signing budget
 * (RALLY_SIGN_LIMIT_PER_HOUR) and `export` from the caller's export budget (10 a minute).
 */
export type RateLimitClass = 'default' | 'sign' | 'export' | 'report' | 'none';

export type RouteSpec<P extends TSchema, Q extends TSchema, B extends TSchema> = {
  method: HttpMethod;
  /** Koa syntax: `/v1/petitions/:id`. */
  path: string;
  operationId: string;
  summary: string;
  /** What the reference says about the operation beyond its summary (Markdown); the summary otherwise. */
  description?: string;
  tag: string;
  auth: AuthRequirement;
  /**
   * The OAuth scope an app token needs here, or `not_for_apps`. Every route whose `auth` is not
   * `none` declares it (test/api/oauth-scopes.test.ts); an undeclared one refuses apps.
   */
  scope?: RouteScope;
  permission?: Permission;
  /** A suspended person may still call it with their own login (authenticate.ts); default false. */
  suspendedMayCall?: boolean;
  deprecated?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Default `default`. */
  rateLimit?: RateLimitClass;
  /**
   * Whether Idempotency-Key applies; by default it does on POST. Off for routes whose request
   * carries a password or token (login, token refresh): their fingerprint must not be stored.
   */
  idempotent?: boolean;
  /**
   * The answer shows a secret once (a raw API key, a webhook secret): an idempotent retry must not
   * show it again from the store, so the answer is not kept; a retry gets 409
   * idempotency_secret_not_replayable naming the resource that was created.
   */
  revealsSecret?: boolean;
  /** Bytes of JSON body this route accepts; RALLY's default body limit (1 MiB) otherwise. */
  bodyLimit?: number;
  /** The handler streams the request body itself (file uploads): the JSON body parser skips it. */
  rawBody?: boolean;
  /** For the reference: what a rawBody route reads, per media type (its handler checks it itself). */
  requestContent?: Record<string, TSchema>;
  /** A route of Rally's own pages and forms (HTML, scripts): served, but not part of the API reference. */
  browser?: boolean;
  responses: Record<number, ResponseSpec>;
  handler: (ctx: RallyContext, input: { params: Static<P>; query: Static<Q>; body: Static<B> }) => Promise<void>;
};

// Existential form kept in route lists, where each route has its own schema types.
export type AnyRouteSpec = RouteSpec<any, any, any>;

export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(spec: RouteSpec<P, Q, B>): AnyRouteSpec {
  return spec;
}

/** Everything the contract asks before the handler runs (route-guard.ts); given by the app. */
export type RouteGuard = (route: AnyRouteSpec) => Middleware<RallyState>;

/** `/v1/petitions/:id` → `/v1/petitions/{id}` for the OpenAPI document. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
