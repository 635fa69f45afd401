// Guest signing in the browser (issue 26): the form of /p/{slug} and /embed/p/{slug} posts here, and the confirmation email's link lands here. Every answer is
// an HTML page, never a problem document, also for bad input (400), a refused form (403), a limit (429) or a dead link (404, 410).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { findByReference } from '../../core/guest-signatures/confirm.ts';
import type { ConfirmBatcher } from '../../core/guest-signatures/confirm-batcher.ts';
import type { GuestFormBatcher } from '../../core/guest-signatures/submit-batcher.ts';
import { checkFormToken, formToken } from '../../core/guest-signatures/tokens.ts';
import { Unavailable } from '../../core/errors/domain-error.ts';
import { ANONYMOUS, canRead } from '../../core/petitions/policy.ts';
import { findPetitionBySlug } from '../../core/petitions/queries.ts';
import { locateSigner } from '../../core/signatures/geolocation.ts';
import type { PublicPetitionCache } from '../../core/petitions/read-cache.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';
import { networkBlockHash } from '../../core/signatures/network-block.ts';
import { readBrowserForm } from '../session-form.ts';
import type { RallyContext } from '../../api/http/context.ts';
import type { RouteLimits } from '../../api/http/limits.ts';
import { RallyError } from '../../api/http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { htmlPolicies } from '../../api/http/security-headers.ts';
import { sentFromOrigin } from './form-origin.ts';
import { HONEYPOT_FIELD, FORM_TOKEN_FIELD, type GuestFormVariant } from './guest-sign-form.ts';
import { readGuestForm } from './guest-sign-input.ts';
import {
  alreadyPage,
  checkYourEmail,
  confirmedPage,
  confirmStep,
  formWithErrors,
  refusalPage,
  renderGuestPage,
  withFormToken,
  type GuestPage,
} from './guest-sign-pages.ts';
import { PAGE_CSS_HASH, WIDGET_CSS_HASH } from '../styles.ts';

export type GuestSignRouteDependencies = {
  db: DatabasePool;
  publicUrl: string;
  encryptionKey: string;
  networkKey: Buffer;
  limits: Pick<RouteLimits, 'chargeGuestSignature'>;
  guestForms: GuestFormBatcher;
  guestConfirmations: ConfirmBatcher;
  feed: SignatureFeed;
  petitions: PublicPetitionCache;
};

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
const ReferenceParams = Type.Object({ reference: Type.String({ minLength: 1, maxLength: 200 }) });
const HTML_PAGE = { description: 'HTML page', contentType: 'text/html' };
const FORM_REFUSED = 'We could not take this form. Please check your details and send it again.';

/** An HTML answer in the look of the page it came from (petition page or widget), never cached. */
type GuestAnswer = (ctx: RallyContext, status: number, variant: GuestFormVariant, page: GuestPage, token?: string) => void;

/** The dependencies with Rally's own origin (forms must come from it) and the answer every handler sends. */
type GuestSigning = GuestSignRouteDependencies & { origin: string; answer: GuestAnswer };

function guestAnswer(publicUrl: string): GuestAnswer {
  return (ctx, status, variant, page, token) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    const policy = variant === 'widget' ? htmlPolicies.widget : htmlPolicies.page;
    ctx.set('Content-Security-Policy', policy(publicUrl, { styleHash: variant === 'widget' ? WIDGET_CSS_HASH : PAGE_CSS_HASH }));
    const body = renderGuestPage(variant, page);
    ctx.body = token ? withFormToken(body, token) : body;
  };
}

// CSRF without a session (the widget's iframe gets no cookies): the browser's Sec-Fetch-Site and Origin must
// say the form was sent from Rally's own origin (the iframe's document is ours), and the form token
// (core/guest-signatures/tokens.ts) must be Rally's, for this petition, and neither too young (a bot) nor too
// old. The signing limits of the API (address, network block, email domain) apply to every form that passes;
// the rest (one email per address and petition per hour, a ceiling per address) is
// core/guest-signatures/submit.ts.
async function submitGuestForm(guest: GuestSigning, ctx: RallyContext, slug: string, variant: GuestFormVariant): Promise<void> {
  const { answer } = guest;
  if (!sentFromOrigin(ctx, guest.origin))
    return answer(ctx, 403, variant, refusalPage('Form refused', 'This form can only be sent from the petition’s own page.'));
  const fields = await readBrowserForm(ctx, (status, message) => answer(ctx, status, variant, refusalPage('Form refused', message)));
  if (!fields) return;
  // A public petition comes from the read cache (core/petitions/read-cache.ts) without a query; anything
  // else is read from the database and judged by the policy, which answers the 404.
  const petition = (await guest.petitions.read(slug)) ?? (await findPetitionBySlug(guest.db, slug));
  if (!petition || !canRead(ANONYMOUS, petition))
    return answer(ctx, 404, variant, refusalPage('Petition not found', 'There is no public petition at this address.'));
  if (petition.status !== 'active')
    return answer(ctx, 409, variant, refusalPage('Not taking signatures', `This petition is ${petition.status} and takes no more signatures.`, petition));

  const freshToken = formToken(guest.encryptionKey, petition.id, Date.now());
  const { values, errors, input } = readGuestForm(fields);
  const verdict = checkFormToken(guest.encryptionKey, petition.id, fields[FORM_TOKEN_FIELD] ?? '', Date.now());
  if (verdict === 'forged' || verdict === 'stale') errors.form = 'This form has expired. Please send it again.';
  // A bot's tells get the same answer as a slip: nothing to learn from it.
  else if (verdict === 'too_fast' || (fields[HONEYPOT_FIELD] ?? '') !== '') errors.form = FORM_REFUSED;
  if (!input || errors.form) return answer(ctx, 400, variant, formWithErrors(petition, values, errors, variant), freshToken);

  try {
    // A blocked signer is told what everyone is told, and nothing is mailed.
    if (!guest.limits.chargeGuestSignature(ctx, input.email)) return answer(ctx, 200, variant, checkYourEmail(petition, input.email, variant));
  } catch (error) {
    if (!(error instanceof RallyError) || error.status !== 429) throw error;
    for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
    return answer(ctx, 429, variant, refusalPage('Too many signatures', error.message, petition));
  }
  try {
    await guest.guestForms.submit({
      ...input,
      petitionId: petition.id,
      source: variant === 'widget' ? 'embed' : 'page',
      networkHash: networkBlockHash(guest.networkKey, ctx.state.clientIp),
    });
  } catch (error) {
    // The batcher's queue is full: a page that says so, not the API's problem document.
    if (!(error instanceof Unavailable)) throw error;
    ctx.set('Retry-After', String(error.retryAfterSeconds ?? 1));
    return answer(ctx, 503, variant, refusalPage('Very busy', error.message, petition));
  }
  answer(ctx, 200, variant, checkYourEmail(petition, input.email, variant));
}

const invalidLink = () => refusalPage('This link is not valid', 'Check that you opened the whole link from the email, or sign the petition again.');

const expiredPage = (petition: { slug: string; title: string }) =>
  refusalPage('This link has expired', 'Signatures must be confirmed within a few days. Sign the petition again to get a new link.', petition);

/** GET of the confirmation link: shows the button, changes nothing. */
async function openConfirmationLink(guest: GuestSigning, ctx: RallyContext, reference: string): Promise<void> {
  const { answer } = guest;
  const pending = await findByReference(guest.db, reference);
  if (!pending) return answer(ctx, 404, 'page', invalidLink());
  if (pending.status === 'confirmed' || pending.status === 'already_signed')
    return answer(ctx, 200, 'page', alreadyPage(pending, pending.email, pending.status === 'confirmed' ? 'already_confirmed' : 'already_signed'));
  if (pending.status === 'expired' || pending.expired) return answer(ctx, 410, 'page', expiredPage(pending));
  answer(ctx, 200, 'page', confirmStep(pending.title));
}

async function confirmGuestSignature(guest: GuestSigning, ctx: RallyContext, reference: string): Promise<void> {
  const { answer } = guest;
  const outcome = await guest.guestConfirmations.confirm({ reference, place: locateSigner(ctx.state.clientIp, null) });
  switch (outcome.kind) {
    case 'invalid':
      return answer(ctx, 404, 'page', invalidLink());
    case 'expired':
      return answer(ctx, 410, 'page', expiredPage(outcome));
    case 'refused':
      return answer(ctx, 409, 'page', refusalPage('Not signed', outcome.reason, outcome));
    case 'already_confirmed':
    case 'already_signed':
      return answer(ctx, 200, 'page', alreadyPage(outcome, outcome.email, outcome.kind));
    case 'signed': {
      const { result } = outcome;
      guest.feed.publish({
        type: 'signature.created',
        petition_id: result.petition_id,
        signature_count: result.signature_count,
        created_at: result.created_at,
      });
      return answer(ctx, 200, 'page', confirmedPage(outcome, outcome.email, result.signature_count));
    }
  }
}

const tag = 'Pages';

function guestFormRoute(guest: GuestSigning, path: string, variant: GuestFormVariant, operationId: string): AnyRouteSpec {
  return defineRoute({
    method: 'post',
    path,
    operationId,
    tag,
    auth: 'none',
    idempotent: false,
    rawBody: true,
    summary: 'The guest signing form (application/x-www-form-urlencoded): stores a pending signature and emails its confirmation link',
    params: SlugParams,
    responses: {
      200: HTML_PAGE,
      400: HTML_PAGE,
      403: HTML_PAGE,
      404: HTML_PAGE,
      409: HTML_PAGE,
      413: HTML_PAGE,
      415: HTML_PAGE,
      429: HTML_PAGE,
      503: HTML_PAGE,
    },
    handler: (ctx, { params }) => submitGuestForm(guest, ctx, params.slug, variant),
  });
}

function confirmationLinkRoutes(guest: GuestSigning): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/signatures/confirm/:reference',
      operationId: 'guestConfirmationPage',
      tag,
      auth: 'none',
      summary: "The confirmation link's page: a button that confirms (a GET changes nothing: link scanners fetch links in emails)",
      params: ReferenceParams,
      responses: { 200: HTML_PAGE, 404: HTML_PAGE, 410: HTML_PAGE },
      handler: (ctx, { params }) => openConfirmationLink(guest, ctx, params.reference),
    }),
    defineRoute({
      method: 'post',
      path: '/signatures/confirm/:reference',
      operationId: 'confirmGuestSignature',
      tag,
      auth: 'none',
      idempotent: false,
      rawBody: true,
      summary: 'Confirms a guest signature: it is counted, listed and announced (signature.created) like any other',
      params: ReferenceParams,
      responses: { 200: HTML_PAGE, 404: HTML_PAGE, 409: HTML_PAGE, 410: HTML_PAGE },
      handler: (ctx, { params }) => confirmGuestSignature(guest, ctx, params.reference),
    }),
  ];
}

export function createGuestSignRoutes(deps: GuestSignRouteDependencies): AnyRouteSpec[] {
  const guest: GuestSigning = { ...deps, origin: new URL(deps.publicUrl).origin, answer: guestAnswer(deps.publicUrl) };
  return [
    guestFormRoute(guest, '/p/:slug/sign-by-email', 'page', 'signAsGuest'),
    guestFormRoute(guest, '/embed/p/:slug/sign-by-email', 'widget', 'signAsGuestInWidget'),
    ...confirmationLinkRoutes(guest),
  ];
}
