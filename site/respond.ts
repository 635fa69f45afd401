// How the HTML pages answer: their Content-Security-Policy (named in api/http/security-headers.ts), caching with an ETag and a short max-age (the live count
// comes over the WebSocket, so a cached copy never freezes the number for long), 304 on a matching If-None-Match, and a small HTML 404 page for petitions a
// visitor may not see.
import { createHash } from 'node:crypto';
import type { RallyContext } from '../api/http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../api/http/route.ts';
import { html, trusted } from '../platform/html.ts';
import { PAGE_CSS } from './styles.ts';

/**
 * A script the pages link with a version in its query string (a new script is a new address), so it is
 * cached for a day and revalidated by its ETag.
 */
export function versionedScriptRoute(script: { path: string; operationId: string; tag: string; summary: string; body: string; etag: string }): AnyRouteSpec {
  return defineRoute({
    method: 'get',
    path: script.path,
    operationId: script.operationId,
    tag: script.tag,
    auth: 'none',
    summary: script.summary,
    responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' }, 304: { description: 'Not modified' } },
    async handler(ctx) {
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.etag = script.etag;
      ctx.status = 200;
      if (ctx.fresh) return void (ctx.status = 304);
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = script.body;
    },
  });
}

export const PAGE_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=300';

/**
 * Sends a page with its validators; answers 304 without a body when the client's copy is current.
 * `fill` writes what differs per answer but may be reused from a cached copy (the guest form's token):
 * the ETag, weak for that reason, is of the page before it.
 */
export function sendCacheable(ctx: RallyContext, body: string, contentType: string, csp?: string, fill?: (page: string) => string): void {
  ctx.set('Cache-Control', PAGE_CACHE_CONTROL);
  if (csp) ctx.set('Content-Security-Policy', csp);
  const tag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  ctx.etag = fill ? `W/"${tag}"` : tag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = contentType;
  ctx.body = fill ? fill(body) : body;
}

export function sendNotFoundPage(ctx: RallyContext, csp: string): void {
  ctx.status = 404;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', csp);
  ctx.body = html`<!doctype html>
<html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Petition not found · Rally</title><meta name="description" content="There is no public petition at this address.">
<style>${trusted(PAGE_CSS)}</style></head><body><main><h1>Petition not found</h1>
<p>There is no public petition at this address. It may have been removed, or it may not be published yet.</p></main></body></html>`.value;
}
