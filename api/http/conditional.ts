// Answers that a CDN or browser may keep for a moment and revalidate: a weak ETag over the data (weak, because the envelope's meta differs on every answer), a
// short public max-age, and 304 without a body when If-None-Match already names the current data. Only for answers that are the same for every caller without
// credentials; an answer that depends on who asks is marked private.
import { createHash } from 'node:crypto';
import type { RallyContext } from './context.ts';

/** One second: the live count the issue promises is at most a second behind, at the origin. */
export const PUBLIC_READ_CACHE_CONTROL = 'public, max-age=1';
export const VIEWER_READ_CACHE_CONTROL = 'private, no-cache';

export function weakEtagOf(json: string): string {
  return `W/"${createHash('sha1').update(json).digest('base64url')}"`;
}

/**
 * Sets the validators of a public answer and tells whether the client's copy is current (then the
 * status is 304 and nothing more is to be sent). `Vary: Authorization`: a credential changes the answer.
 */
export function notModified(ctx: RallyContext, etag: string): boolean {
  ctx.set('Cache-Control', PUBLIC_READ_CACHE_CONTROL);
  ctx.vary('Authorization');
  ctx.etag = etag;
  ctx.status = 200;
  if (!ctx.fresh) return false;
  ctx.status = 304;
  return true;
}

/** Marks an answer that depends on the caller's credentials or access code. */
export function markViewerSpecific(ctx: RallyContext): void {
  ctx.set('Cache-Control', VIEWER_READ_CACHE_CONTROL);
  ctx.vary('Authorization');
}
