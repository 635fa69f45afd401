// "Never email me again" (core/guest-signatures/mail-stop.ts): the link every guest signing email carries. Opening it shows one button and changes nothing
// (mail providers' link scanners open links in emails); the button's POST, from Rally's own page (form-origin.ts) or a mail client's RFC 8058 one-click, stops
// all guest mail to the address. Every answer is an HTML page, also for a bad link.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { mailStopKey, parseMailStopToken, stopGuestMail } from '../../core/guest-signatures/mail-stop.ts';
import { sendBrowserPage } from '../browser-pages.ts';
import type { RallyContext } from '../../api/http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { sentFromOrigin } from './form-origin.ts';
import { html } from '../../platform/html.ts';

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
const HTML_PAGE = { description: 'HTML page', contentType: 'text/html' };

export function createGuestMailStopRoutes(deps: { db: DatabasePool; publicUrl: string; encryptionKey: string }): AnyRouteSpec[] {
  const key = mailStopKey(deps.encryptionKey);
  const origin = new URL(deps.publicUrl).origin;
  const page = (ctx: RallyContext, status: number, title: string, body: ReturnType<typeof html>) => sendBrowserPage(ctx, deps.publicUrl, status, title, body);
  const invalid = (ctx: RallyContext) =>
    page(ctx, 404, 'This link is not valid', html`<h1>This link is not valid</h1><p role="alert">Check that you opened the whole link from the email.</p>`);
  const base = { tag: 'Pages', auth: 'none', params: TokenParams } as const;

  return [
    defineRoute({
      ...base,
      method: 'get',
      path: '/guest-emails/unsubscribe/:token',
      operationId: 'guestMailStopPage',
      summary: 'The "never email me again" link of guest signing emails: a page with a button (a GET changes nothing)',
      responses: { 200: HTML_PAGE, 404: HTML_PAGE },
      async handler(ctx, { params }) {
        if (!parseMailStopToken(key, params.token)) return invalid(ctx);
        page(
          ctx,
          200,
          'Stop these emails',
          html`<h1>Never email me again</h1><p>Rally emails this address only when someone fills a petition’s signing form with it
and asks for a confirmation link. Stop every such email to this address, for good?</p>
<form method="post"><button class="btn" type="submit">Never email me again</button></form>`,
        );
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/guest-emails/unsubscribe/:token',
      operationId: 'stopGuestMail',
      idempotent: false,
      // The button's form and a mail client's `List-Unsubscribe=One-Click` (urlencoded or multipart) carry nothing we need.
      rawBody: true,
      summary: 'Stops all guest signing email to the link’s address (the page’s button, or a mail client’s one-click, RFC 8058)',
      responses: { 200: HTML_PAGE, 403: HTML_PAGE, 404: HTML_PAGE },
      async handler(ctx, { params }) {
        if (!sentFromOrigin(ctx, origin)) {
          return page(
            ctx,
            403,
            'Request refused',
            html`<h1>Request refused</h1><p role="alert">This form can only be sent from the page of the link in your email.</p>`,
          );
        }
        const hash = parseMailStopToken(key, params.token);
        if (!hash) return invalid(ctx);
        await stopGuestMail(deps.db, hash);
        page(
          ctx,
          200,
          'No more emails',
          html`<h1>Done: no more emails</h1><p role="status">Rally will send no more guest signing emails to this address: no confirmation
links, reminders or notes, whoever fills in a form with it.</p>`,
        );
      },
    }),
  ];
}
