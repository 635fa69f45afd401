// The HTML side of Rally on {site_url}: the public petition page /p/{slug}, the embeddable widget /embed/p/{slug}, and the script both share. Which petitions
// show is the petition policy's call (core/public-petition.ts); a petition a visitor may not see answers the same 404 page as one that does not exist, except
// one under review, which answers a notice (review-notice.ts).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import type { PageViewCounter } from '../../core/analytics/page-views.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import { loadPublicPage, type PublicPetition, type ReviewNotice } from '../../core/public-petition.ts';
import type { RallyContext } from '../../api/http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { LIVE_SCRIPT, LIVE_SCRIPT_ETAG } from './live-script.ts';
import { renderPetitionPage } from './petition-page.ts';
import { renderReviewNoticePage, renderReviewNoticeWidget } from './review-notice.ts';
import { sendCacheable, sendNotFoundPage, versionedScriptRoute } from '../respond.ts';
import { htmlPolicies } from '../../api/http/security-headers.ts';
import { PAGE_CSS_HASH, WIDGET_CSS_HASH } from '../styles.ts';
import { renderWidgetPage, widgetTheme } from './widget-page.ts';
import { signPanel } from '../sign/sign-panel.ts';
import { sendPersonalPage } from '../browser-pages.ts';
import type { BrowserSessions } from '../../api/http/browser-session.ts';
import { signPanelState } from '../sign/sign-panel-state.ts';
import { formToken } from '../../core/guest-signatures/tokens.ts';
import { withFormToken } from '../sign/guest-sign-pages.ts';
import { guestSigning } from '../sign/guest-sign-form.ts';
import { html } from '../../platform/html.ts';

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
// Extra query parameters (ref, source, utm_*) are welcome on a shared link: the page ignores them.
const WidgetQuery = Type.Object({
  theme: Type.Optional(Type.String({ description: 'light (default), dark, or auto (follows prefers-color-scheme); anything else is light' })),
  description: Type.Optional(Type.String({ description: '1 shows a short excerpt of the description' })),
});
const HTML = 'text/html; charset=utf-8';

/** The petition, or null after answering the 404 page (unknown, draft, private, deleted…). */
async function loadOrNotFound(ctx: RallyContext, load: () => Promise<PublicPetition | ReviewNotice>, notFoundCsp: string) {
  try {
    return await load();
  } catch (error) {
    if (error instanceof DomainError && (error.kind === 'not-found' || error.kind === 'forbidden')) {
      sendNotFoundPage(ctx, notFoundCsp);
      return null;
    }
    throw error;
  }
}

const imageOrigins = (data: PublicPetition) => (data.image ? [data.image.url, ...data.image.variants.map((variant) => variant.url)] : []);

/** Views are counted like those of GET /v1/petitions/{slug} (core/analytics/page-views.ts), 304s included. */
export function createPageRoutes(deps: {
  db: DatabasePool;
  publicUrl: string;
  encryptionKey: string;
  pageViews?: PageViewCounter;
  sessions: BrowserSessions;
  /** RALLY_SIGNER_DATA_RETENTION (null: off): the page says when signers' details go. */
  signerDataRetentionMs: number | null;
}): AnyRouteSpec[] {
  const { db, publicUrl } = deps;
  // The guest form's token (core/guest-signatures/tokens.ts), issued now, for this petition.
  const formTokenFor = (petitionId: string) => (page: string) => withFormToken(page, formToken(deps.encryptionKey, petitionId, Date.now()));
  const tag = 'Pages';
  return [
    defineRoute({
      method: 'get',
      path: '/p/:slug',
      operationId: 'getPetitionPage',
      tag,
      auth: 'none',
      summary: 'The public petition page (HTML): works without JavaScript; with it the count is live',
      params: SlugParams,
      responses: {
        200: { description: 'HTML page', contentType: 'text/html' },
        304: { description: 'Not modified (If-None-Match matched the ETag)' },
        404: { description: 'HTML page: no such public petition', contentType: 'text/html' },
      },
      async handler(ctx, { params }) {
        const data = await loadOrNotFound(
          ctx,
          () => loadPublicPage(db, params.slug, { details: true }),
          htmlPolicies.page(publicUrl, { styleHash: PAGE_CSS_HASH }),
        );
        if (!data) return;
        if ('notice' in data) return sendCacheable(ctx, renderReviewNoticePage(), HTML, htmlPolicies.page(publicUrl, { styleHash: PAGE_CSS_HASH }));
        deps.pageViews?.record(data.petition.id, 'page');
        // The page differs for a logged-in person (site/sign/sign-panel.ts): shared caches key it by the cookie, and a personal copy is never stored.
        ctx.vary('Cookie');
        const panel = await signPanelState(deps, ctx, data.petition.id, 'page');
        // A visitor signs as a guest (confirmed by email) or logs in to sign with one click.
        const signing =
          panel.kind === 'visitor' ? html`${guestSigning(data.petition, 'page')}${signPanel(data.petition.slug, panel)}` : signPanel(data.petition.slug, panel);
        const body = renderPetitionPage(data, publicUrl, signing, deps.signerDataRetentionMs);
        if (panel.kind !== 'visitor') return sendPersonalPage(ctx, publicUrl, 200, body, imageOrigins(data));
        const csp = htmlPolicies.page(publicUrl, { styleHash: PAGE_CSS_HASH, imageOrigins: imageOrigins(data) });
        sendCacheable(ctx, body, HTML, csp, formTokenFor(data.petition.id));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/embed/p/:slug',
      operationId: 'getPetitionWidget',
      tag,
      auth: 'none',
      summary: 'The embeddable widget (HTML for an iframe, frameable by any site); posts rally:resize to its parent',
      params: SlugParams,
      query: WidgetQuery,
      responses: {
        200: { description: 'HTML page', contentType: 'text/html' },
        304: { description: 'Not modified (If-None-Match matched the ETag)' },
        404: { description: 'HTML page: no such public petition', contentType: 'text/html' },
      },
      async handler(ctx, { params, query }) {
        const data = await loadOrNotFound(
          ctx,
          () => loadPublicPage(db, params.slug, { details: false }),
          htmlPolicies.widget(publicUrl, { styleHash: PAGE_CSS_HASH }),
        );
        if (!data) return;
        const widgetCsp = htmlPolicies.widget(publicUrl, { styleHash: WIDGET_CSS_HASH });
        if ('notice' in data) return sendCacheable(ctx, renderReviewNoticeWidget(widgetTheme(query.theme)), HTML, widgetCsp);
        deps.pageViews?.record(data.petition.id, 'widget');
        const body = renderWidgetPage(data, publicUrl, { theme: widgetTheme(query.theme), showDescription: query.description === '1' });
        sendCacheable(ctx, body, HTML, widgetCsp, formTokenFor(data.petition.id));
      },
    }),
    versionedScriptRoute({
      path: '/assets/live.js',
      operationId: 'getLiveScript',
      tag,
      summary: 'The script of the page and the widget: live count over /v1/realtime, rally:resize',
      body: LIVE_SCRIPT,
      etag: LIVE_SCRIPT_ETAG,
    }),
  ];
}
