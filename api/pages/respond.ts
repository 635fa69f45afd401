// How the HTML pages answer: a strict Content-Security-Policy (same-origin script only, the inline
// stylesheet by its hash, WebSocket back to us), caching with an ETag and a short max-age (the live
// count comes over the WebSocket, so a cached copy never freezes the number for long), 304 on a
// matching If-None-Match, and a small HTML 404 page for petitions a visitor may not see.
import { createHash } from 'node:crypto';
import type { RallyContext } from '../http/context.ts';
import { html, trusted } from './html.ts';
import { PAGE_CSS, PAGE_CSS_HASH } from './styles.ts';

export const PAGE_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=300';

export type PagePolicy = { styleHash: string; imageOrigins?: string[]; frameAncestors: string };

function originsOf(urls: string[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // Not an absolute address: nothing to allow.
    }
  }
  return [...origins];
}

export function contentSecurityPolicy(publicUrl: string, policy: PagePolicy): string {
  const socketOrigin = publicUrl.replace(/^http/, 'ws');
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${policy.styleHash}`,
    `img-src 'self' ${originsOf(policy.imageOrigins ?? []).join(' ')}`.trim(),
    `connect-src 'self' ${socketOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${policy.frameAncestors}`,
  ].join('; ');
}

/** Sends a page with its validators; answers 304 without a body when the client's copy is current. */
export function sendCacheable(ctx: RallyContext, body: string, contentType: string, csp?: string): void {
  ctx.set('Cache-Control', PAGE_CACHE_CONTROL);
  if (csp) ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.etag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = contentType;
  ctx.body = body;
}

export function sendNotFoundPage(ctx: RallyContext, publicUrl: string, frameAncestors: string): void {
  ctx.status = 404;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', contentSecurityPolicy(publicUrl, { styleHash: PAGE_CSS_HASH, frameAncestors }));
  ctx.body = html`<!doctype html>
<html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Petition not found · Rally</title><meta name="description" content="There is no public petition at this address.">
<style>${trusted(PAGE_CSS)}</style></head><body><main><h1>Petition not found</h1>
<p>There is no public petition at this address. It may have been removed, or it may not be published yet.</p></main></body></html>`.value;
}
