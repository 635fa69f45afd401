// One-click unsubscribe from notification emails (RFC 8058), without logging in: the mail client
// POSTs to the List-Unsubscribe link; a person who opens the link gets a page with a button that
// POSTs, because link scanners fetch links in emails and a GET must change nothing.
import { Type } from '@sinclair/typebox';
import { unsubscribe } from '../../core/notifications/unsubscribe.ts';
import type { Config } from '../../platform/config.ts';
import type { DatabasePool } from 'slonik';
import { sendData } from '../http/context.ts';
import { Meta } from '../http/envelopes.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 300, pattern: '^[A-Za-z0-9_.-]+$' }) });

export function createUnsubscribeRoutes(deps: { db: DatabasePool; config: Config }): AnyRouteSpec[] {
  // For the recipient's browser and mail client (RFC 8058), not for integrators: out of the API reference.
  const base = { tag: 'Notifications', auth: 'none', params: TokenParams, browser: true } as const;
  return [
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/notifications/unsubscribe/:token',
      operationId: 'unsubscribePage',
      summary: 'A page with a button that unsubscribes (changes nothing by itself)',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      async handler(ctx) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Cache-Control', 'no-store');
        ctx.body =
          '<!doctype html><title>Unsubscribe</title><form method="post"><p>Stop these notification ' +
          'emails?</p><button type="submit">Unsubscribe</button></form>';
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/notifications/unsubscribe/:token',
      operationId: 'unsubscribeOneClick',
      // Mail clients post `List-Unsubscribe=One-Click` as a form; the body carries nothing we need.
      rawBody: true,
      summary: "One-click unsubscribe (RFC 8058): turns off the email channel of the link's notification type (all types from a digest)",
      responses: {
        200: {
          description: 'The types whose email is now off',
          schema: Type.Object({ data: Type.Object({ email_off: Type.Array(Type.String()) }), meta: Meta }),
        },
        404: { description: 'Not a valid link' },
      },
      async handler(ctx, { params }) {
        sendData(ctx, { email_off: await unsubscribe(deps.db, deps.config.encryptionKey, params.token) });
      },
    }),
  ];
}
