// A route is declared once: method, path, who may call it, and the JSON Schemas of its parts.
// The same declaration drives the Ajv validators, the handler's TypeScript types and the OpenAPI
// document, so the three cannot drift apart.
import type Router from '@koa/router';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Middleware } from 'koa';
import { compileValidator, type Validator } from './validation.ts';
import type { RallyContext, RallyState } from './context.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `none`: public; `optional`: credentials change the answer; `required`: 401 without them. */
export type AuthRequirement = 'none' | 'optional' | 'required';

import type { Permission } from '../../core/auth/principal.ts';

export type { Permission };

export type ResponseSpec = { description: string; schema?: TSchema; contentType?: string };

export type RouteSpec<P extends TSchema, Q extends TSchema, B extends TSchema> = {
  method: HttpMethod;
  /** Koa syntax: `/v1/petitions/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: AuthRequirement;
  permission?: Permission;
  deprecated?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Bytes; the default body limit applies otherwise. */
  bodyLimit?: number;
  /** The handler streams the request body itself (file uploads): the JSON body parser skips it. */
  rawBody?: boolean;
  responses: Record<number, ResponseSpec>;
  handler: (ctx: RallyContext, input: { params: Static<P>; query: Static<Q>; body: Static<B> }) => Promise<void>;
};

// Existential form kept in route lists, where each route has its own schema types.
export type AnyRouteSpec = RouteSpec<any, any, any>;

export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(spec: RouteSpec<P, Q, B>): AnyRouteSpec {
  return spec;
}

/** Runs before validation: authentication, scope checks, rate limits. Given by the app. */
export type RouteGuard = (route: AnyRouteSpec) => Middleware<RallyState>;

export function mountRoutes(router: Router<RallyState>, routes: AnyRouteSpec[], guard: RouteGuard): void {
  for (const route of routes) {
    const validate = {
      params: route.params ? compileValidator(route.params, 'params') : undefined,
      query: route.query ? compileValidator(route.query, 'query') : undefined,
      body: route.body ? compileValidator(route.body, 'body') : undefined,
    };
    router[route.method](route.operationId, route.path, guard(route), runHandler(route, validate));
  }
}

function runHandler(route: AnyRouteSpec, validate: Record<'params' | 'query' | 'body', Validator | undefined>): Middleware<RallyState> {
  return async function handleRoute(ctx) {
    const routerCtx = ctx as RallyContext & { params: Record<string, string> };
    const params = validate.params ? validate.params({ ...routerCtx.params }) : {};
    const query = validate.query ? validate.query({ ...ctx.query }) : {};
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = validate.body ? validate.body(rawBody ?? {}) : undefined;
    await route.handler(ctx, { params, query, body });
  };
}

/** `/v1/petitions/:id` → `/v1/petitions/{id}` for the OpenAPI document. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
