// The OpenAPI document without a running API: the route table (route-table.ts) is declared with services that are never called, since a declaration only holds
// them for its handler. A service touched while declaring would throw here, naming itself, rather than reach a database. `npm run openapi` (scripts/openapi.ts)
// writes the result to openapi.json, which the API serves (served-document.ts).
import { loadConfig } from '../../platform/config.ts';
import { declareRoutes, type RouteServices } from '../route-table.ts';
import type { AnyRouteSpec } from '../http/route.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { DOCUMENT_SERVER } from './served-document.ts';

// A variable: every installation has its own address (served-document.ts puts it in).
const SERVERS = [
  {
    url: '{origin}',
    description: 'Your Rally installation',
    variables: { origin: { default: DOCUMENT_SERVER, description: 'The PUBLIC_URL of the installation' } },
  },
];
export const DOCUMENT_VERSION = '1.0.0';

function neverCalled(name: string): unknown {
  const fail = () => {
    throw new Error(`${name} was used while declaring routes; a declaration must only keep its services for its handler`);
  };
  return new Proxy(fail, {
    // `then` undefined: a service that is awaited by mistake does not look like a promise.
    get: (_target, key) => (key === 'then' || typeof key === 'symbol' ? undefined : neverCalled(`${name}.${String(key)}`)),
    apply: fail,
    construct: fail,
  });
}

/** The routes as declared for the committed document: default settings, no service behind them. */
export function offlineRoutes(): AnyRouteSpec[] {
  // Fixed settings, so the document never depends on the environment of whoever builds it.
  const config = loadConfig({ NODE_ENV: 'development', PORT: '3000', PUBLIC_URL: DOCUMENT_SERVER });
  const services = new Proxy({ config, getDocument: () => ({}) } as Partial<RouteServices>, {
    get: (target, key: string) => target[key as keyof RouteServices] ?? neverCalled(key),
  }) as RouteServices;
  return declareRoutes(services);
}

export function buildOfflineDocument(): Record<string, unknown> {
  return buildOpenApiDocument(offlineRoutes(), { publicUrl: DOCUMENT_SERVER, version: DOCUMENT_VERSION, servers: SERVERS });
}
