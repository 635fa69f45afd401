// Binds the consent form's answer to the browser that was shown the screen (RFC 9700 4.4.1.8, login
// CSRF): GET /oauth/authorize gives the browser a random per-browser value in an HttpOnly, SameSite
// cookie (kept if it already has one, so several tabs work) and puts its SHA-256 in the signed consent
// ticket; POST /oauth/authorize accepts the ticket only from a browser presenting the same value.
// A ticket lifted from the page into another browser, or an answer forged by another site, fails.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RallyContext } from '../http/context.ts';

const COOKIE = 'rally_oauth_browser';
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;
const MAX_AGE_SECONDS = 30 * 86_400;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

function presentedBinding(ctx: RallyContext): string | undefined {
  for (const part of (ctx.get('Cookie') ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === COOKIE && value && WELL_FORMED.test(value)) return value;
  }
  return undefined;
}

/** The hash to put in the consent ticket; sets the cookie when the browser has none yet. */
export function bindBrowser(ctx: RallyContext, secure: boolean): string {
  let binding = presentedBinding(ctx);
  if (!binding) {
    binding = randomBytes(32).toString('base64url');
    const attributes = [
      `${COOKIE}=${binding}`,
      'Path=/oauth/authorize',
      `Max-Age=${MAX_AGE_SECONDS}`,
      'HttpOnly',
      'SameSite=Lax',
      ...(secure ? ['Secure'] : []),
    ];
    ctx.append('Set-Cookie', attributes.join('; '));
  }
  return digest(binding);
}

/** Whether this browser is the one the ticket's screen was shown to. */
export function isSameBrowser(ctx: RallyContext, ticketBinding: string): boolean {
  const binding = presentedBinding(ctx);
  if (!binding) return false;
  const [presented, expected] = [Buffer.from(digest(binding)), Buffer.from(ticketBinding)];
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
