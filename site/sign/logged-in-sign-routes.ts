// One-click signing for people logged in in a browser: POST /p/{slug}/sign, a plain form that signs through the very path of POST /v1/petitions/{id}/signatures
// (the group-commit batcher and its checks, limits, counters, milestones and outbox events), then answers 303 back to the page (post/redirect/get), which shows
// "You signed" and the live count. GET /p/{slug}/sign-popup is that page in small for the widget's popup (account-script.ts).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { actorOf } from '../../core/events/record-event.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import { loadPublicPetition, type PublicPetition } from '../../core/public-petition.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import { locateSigner } from '../../core/signatures/geolocation.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';
import { networkBlockHash } from '../../core/signatures/network-block.ts';
import type { SignBatcher } from '../../core/signatures/sign-batcher.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { RallyContext } from '../../api/http/context.ts';
import type { RouteLimits } from '../../api/http/limits.ts';
import { RallyError } from '../../api/http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { html } from '../../platform/html.ts';
import { renderPetitionPage, tally } from '../petition/petition-page.ts';
import { COMMENT_MAX_LENGTH, signPanel, type SignFormErrors } from './sign-panel.ts';
import { petitionPagePath } from '../../api/http/petition-urls.ts';
import { countedSignature } from '../../core/signatures/sign-attempts.ts';
import { ACCOUNT_SCRIPT, ACCOUNT_SCRIPT_ETAG, ACCOUNT_SCRIPT_PATH } from './account-script.ts';
import { seeOther, sendBrowserPage, sendPersonalPage, sendRefusal } from '../browser-pages.ts';
import { versionedScriptRoute } from '../respond.ts';
import type { BrowserSessions } from '../../api/http/browser-session.ts';
import { readSessionForm } from '../session-form.ts';
import { signPanelState } from './sign-panel-state.ts';

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
const tag = 'Browser sessions';
const HTML = (description: string) => ({ description, contentType: 'text/html' });

export type BrowserSignDependencies = {
  db: DatabasePool;
  publicUrl: string;
  sessions: BrowserSessions;
  signatures: SignBatcher;
  feed: SignatureFeed;
  limits: RouteLimits;
  networkKey?: Buffer;
  /** RALLY_SIGNER_DATA_RETENTION (null: off), for the page shown again with errors. */
  signerDataRetentionMs: number | null;
};

/** Where the browser goes after signing: back to the page's panel, or to the popup that tells the widget. */
const afterSigning = (slug: string, via: string) => (via === 'popup' ? `${petitionPagePath(slug)}/sign-popup` : `${petitionPagePath(slug)}#sign`);

/** What the person sent: shown again in the form when it is not signed. */
type SignFormValues = { comment: string; anonymous: boolean; via: 'page' | 'popup' };

/** The petition a visitor may see, or undefined after answering the 404 page. */
async function petitionOr404(deps: BrowserSignDependencies, ctx: RallyContext, slug: string, details: boolean): Promise<PublicPetition | undefined> {
  try {
    return await loadPublicPetition(deps.db, slug, { details });
  } catch (error) {
    if (error instanceof DomainError && (error.kind === 'not-found' || error.kind === 'forbidden')) {
      sendRefusal(ctx, deps.publicUrl, 404, 'There is no public petition at this address.', '/');
      return undefined;
    }
    throw error;
  }
}

function sendPopup(ctx: RallyContext, publicUrl: string, status: number, data: PublicPetition, panel: ReturnType<typeof signPanel>, signed = false) {
  const { petition } = data;
  const told = signed
    ? html`<div data-signed-petition="${petition.id}" data-count="${petition.live_signature_count}"></div>
<p><button type="button" class="btn" data-close hidden>Close this window</button></p>`
    : '';
  sendBrowserPage(
    ctx,
    publicUrl,
    status,
    `Sign: ${petition.title}`,
    html`<h1>${petition.title}</h1><section class="tally" aria-label="Signatures">${tally(petition)}</section>
<section id="sign" aria-label="Sign">${panel}</section>${told}<script src="${ACCOUNT_SCRIPT_PATH}" defer></script>`,
  );
}

/** The page again, with what the person typed and why it was not signed. */
async function answerWithErrors(
  deps: BrowserSignDependencies,
  ctx: RallyContext,
  status: number,
  data: PublicPetition,
  values: SignFormValues,
  errors: SignFormErrors,
) {
  const { db, publicUrl, sessions } = deps;
  const state = await signPanelState({ db, sessions }, ctx, data.petition.id, values.via);
  const panel = signPanel(data.petition.slug, state.kind === 'ready' ? { ...state, values, errors } : state);
  ctx.set('Cache-Control', 'no-store');
  if (values.via === 'popup') return sendPopup(ctx, publicUrl, status, data, panel);
  const images = data.image ? [data.image.url, ...data.image.variants.map((variant) => variant.url)] : [];
  sendPersonalPage(ctx, publicUrl, status, renderPetitionPage(data, publicUrl, panel, deps.signerDataRetentionMs), images);
}

/** Signs through the API's own path (the group-commit batcher) and announces the new count. */
async function signAndAnnounce(deps: BrowserSignDependencies, ctx: RallyContext, petitionId: string, values: SignFormValues, principal: Principal) {
  const result = await countedSignature(() =>
    deps.signatures.sign({
      input: {
        petitionId,
        userId: principal.userId,
        viewer: viewerOf(principal),
        actor: actorOf(principal),
        comment: values.comment || null,
        isAnonymous: values.anonymous,
        displayLocation: null,
        place: locateSigner(ctx.state.clientIp, null),
        referrerSlug: null,
        accessCode: null,
        source: values.via === 'popup' ? 'embed' : 'page',
        networkHash: deps.networkKey ? networkBlockHash(deps.networkKey, ctx.state.clientIp) : null,
        flags: ctx.state.signingFlags ?? null,
      },
    }),
  );
  deps.feed.publish({
    type: 'signature.created',
    petition_id: result.petition_id,
    signature_count: result.signature_count,
    created_at: result.created_at,
  });
}

/** A signature that was not taken, answered as a page; anything else is rethrown. */
async function answerNotSigned(deps: BrowserSignDependencies, ctx: RallyContext, error: unknown, slug: string, data: PublicPetition, values: SignFormValues) {
  // Signed before: the page says so, and nothing was counted twice.
  if (error instanceof DomainError && error.code === 'already_signed') return seeOther(ctx, afterSigning(slug, values.via));
  // Who may sign is core/signatures' rule: the panel (unverified) says what to do.
  if (error instanceof DomainError && error.code === 'email_unverified') return answerWithErrors(deps, ctx, 403, data, values, {});
  if (error instanceof RallyError && (error.status === 429 || error.code === 'signing_blocked')) {
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    return answerWithErrors(deps, ctx, error.status, data, values, { form: error.message });
  }
  if (error instanceof DomainError && (error.kind === 'conflict' || error.kind === 'rate-limited')) {
    return answerWithErrors(deps, ctx, error.kind === 'conflict' ? 409 : 429, data, values, { form: error.message });
  }
  throw error;
}

async function signInBrowser(deps: BrowserSignDependencies, ctx: RallyContext, slug: string): Promise<void> {
  deps.limits.chargeGeneral(ctx);
  const back = petitionPagePath(slug);
  const submitted = await readSessionForm(ctx, { sessions: deps.sessions, publicUrl: deps.publicUrl, back, loginReturnTo: back });
  if (!submitted) return;
  const { form, session } = submitted;
  const data = await petitionOr404(deps, ctx, slug, true);
  if (!data) return;
  const values: SignFormValues = {
    comment: (form.comment ?? '').trim(),
    anonymous: form.is_anonymous === '1',
    via: form.via === 'popup' ? 'popup' : 'page',
  };
  if (values.comment.length > COMMENT_MAX_LENGTH) {
    return answerWithErrors(deps, ctx, 422, data, values, {
      comment: `Shorten your comment to at most ${COMMENT_MAX_LENGTH} characters (it has ${values.comment.length}).`,
    });
  }
  const principal: Principal = { kind: 'user', userId: session.user.id, role: session.user.role, scope: 'full' };
  ctx.state.principal = principal;
  try {
    await deps.limits.chargeClass(ctx, 'sign');
    await signAndAnnounce(deps, ctx, data.petition.id, values, principal);
  } catch (error) {
    return answerNotSigned(deps, ctx, error, slug, data, values);
  }
  seeOther(ctx, afterSigning(slug, values.via));
}

function signRoute(deps: BrowserSignDependencies): AnyRouteSpec {
  return defineRoute({
    method: 'post',
    path: '/p/:slug/sign',
    operationId: 'signPetitionInBrowser',
    tag,
    auth: 'none',
    rateLimit: 'none',
    rawBody: true,
    idempotent: false,
    summary: 'Signs as the logged-in person (HTML form with the session’s CSRF token); 303 back to the page',
    params: SlugParams,
    responses: {
      303: HTML('Signed (or already signed): back to the page, or to login when nobody is logged in'),
      400: HTML('A malformed form (a field given twice)'),
      403: HTML('Not from a Rally page, without the CSRF token, the email address is not confirmed, or the signer is on the block-list'),
      404: HTML('No such public petition'),
      409: HTML('The petition is not taking signatures'),
      413: HTML('Form too large'),
      415: HTML('Not a form'),
      422: HTML('The page again with the form’s errors'),
      429: HTML('The page again: too many signatures from this address, network or email domain'),
    },
    handler: (ctx, { params }) => signInBrowser(deps, ctx, params.slug),
  });
}

function signPopupRoute(deps: BrowserSignDependencies): AnyRouteSpec {
  const { db, sessions } = deps;
  return defineRoute({
    method: 'get',
    path: '/p/:slug/sign-popup',
    operationId: 'getSignPopup',
    tag,
    auth: 'none',
    summary: "The widget's account popup: log in, sign, and tell the widget (postMessage to Rally's origin)",
    params: SlugParams,
    responses: { 200: HTML('HTML page'), 303: HTML('To /login, coming back here'), 404: HTML('No such public petition') },
    async handler(ctx, { params }) {
      const data = await petitionOr404(deps, ctx, params.slug, false);
      if (!data) return;
      if (!(await sessions.requireUser(ctx))) return;
      const state = await signPanelState({ db, sessions }, ctx, data.petition.id, 'popup');
      sendPopup(ctx, deps.publicUrl, 200, data, signPanel(data.petition.slug, state), state.kind === 'signed');
    },
  });
}

const accountScriptRoute = () =>
  versionedScriptRoute({
    path: '/assets/account.js',
    operationId: 'getAccountScript',
    tag,
    summary: "The script of the widget's account popup",
    body: ACCOUNT_SCRIPT,
    etag: ACCOUNT_SCRIPT_ETAG,
  });

export function createBrowserSignRoutes(deps: BrowserSignDependencies): AnyRouteSpec[] {
  return [signRoute(deps), signPopupRoute(deps), accountScriptRoute()];
}
