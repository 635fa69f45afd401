// Downloading one's data from the browser (issue 46): POST /account/export (CSRF-checked like every
// form of a logged-in page) starts the export POST /v1/users/me/export starts, through the same core
// service, and answers a page saying the link will be emailed.
import type { DatabasePool } from 'slonik';
import { startAccountExport, type AccountExportWorkflows } from '../../core/account-exports/exports.ts';
import { domainErrorOfConstraint } from '../../core/errors/constraints.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { html } from '../../platform/html.ts';
import { sendBrowserPage, sendRefusal } from '../browser-pages.ts';
import type { BrowserSessions } from '../../api/http/browser-session.ts';
import { readSessionForm } from '../session-form.ts';

export const BROWSER_EXPORT_PATH = '/account/export';
const page = (description: string) => ({ description, contentType: 'text/html' });

export function createBrowserExportRoutes(deps: {
  db: DatabasePool;
  publicUrl: string;
  sessions: BrowserSessions;
  workflows: AccountExportWorkflows;
  linkTtlMs: number;
}): AnyRouteSpec[] {
  const { publicUrl, sessions } = deps;
  return [
    defineRoute({
      method: 'post',
      path: BROWSER_EXPORT_PATH,
      operationId: 'startBrowserAccountExport',
      tag: 'Browser sessions',
      auth: 'none',
      rawBody: true,
      idempotent: false,
      summary: 'Starts an export of the logged-in person’s data, as POST /v1/users/me/export does (HTML form, CSRF-checked)',
      responses: {
        202: page('HTML page: the export runs, its link will be emailed'),
        403: page('HTML page: not from a Rally page, or without the session’s CSRF token'),
        409: page('HTML page: an export is still running, or the account is being deleted'),
        413: page('HTML page: form too large'),
        415: page('HTML page: not a form'),
        429: page('HTML page: three exports in 24 hours already'),
      },
      async handler(ctx) {
        const submitted = await readSessionForm(ctx, { sessions, publicUrl, loginReturnTo: '/account' });
        if (!submitted) return;
        try {
          await startAccountExport(deps, submitted.session.user.id);
        } catch (thrown) {
          // A second export while one runs breaks a unique constraint: the same conflict the API answers.
          const error = thrown instanceof DomainError ? thrown : domainErrorOfConstraint(thrown);
          if (!error) throw thrown;
          if (error.kind === 'conflict') return sendRefusal(ctx, publicUrl, 409, refusalOf(error));
          if (error.kind !== 'rate-limited') throw error;
          ctx.set('Retry-After', String(error.retryAfterSeconds ?? 1));
          return sendRefusal(ctx, publicUrl, 429, error.message);
        }
        sendBrowserPage(
          ctx,
          publicUrl,
          202,
          'Your data is on its way',
          html`<h1>Your data is on its way</h1><p role="status">We are gathering your data into one ZIP file. When it is ready we email you a link
to download it; the link works once.</p><p><a href="/account">Back to your account</a></p>`,
        );
      },
    }),
  ];
}

/** The core's sentence for a running export names no next step; the page's does. */
function refusalOf(error: DomainError): string {
  if (error.code !== 'export_running') return error.message;
  return 'An export of your data is already being prepared. Its link will be emailed to you; you can ask for another once it is ready.';
}
