// The pages guest signing answers with, on the petition page's look or, inside the widget's iframe, the widget's: "check your email" (the same whoever the
// address belongs to), the form again with its errors, the confirmation step (a button: link scanners fetch links in emails, and a GET must not sign), its
// outcomes, and the refusals (expired or forged link, a closed petition, a limit).
import { html, trusted, type SafeHtml } from '../../platform/html.ts';
import { FORM_TOKEN_SLOT, guestSignForm, guestSignPath, type GuestFormErrors, type GuestFormValues, type GuestFormVariant } from './guest-sign-form.ts';
import { PAGE_CSS, WIDGET_CSS } from '../styles.ts';
import { petitionPagePath } from '../../api/http/petition-urls.ts';

export type GuestPage = { title: string; body: SafeHtml };

/** A whole page around `body`, in the variant's look; `robots` noindex: nothing here is for search engines. */
export function renderGuestPage(variant: GuestFormVariant, page: GuestPage): string {
  const widget = variant === 'widget';
  return html`<!doctype html>
<html lang="en" data-theme="${widget ? 'light' : 'auto'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${page.title} · Rally</title>
<style>${trusted(widget ? WIDGET_CSS : PAGE_CSS)}</style></head>
<body><main${widget ? trusted(' class="w"') : ''}>${page.body}
${widget ? html`<p class="by mu">Petition on Rally</p>` : html`<footer class="mu">Hosted on Rally, the open petition platform.</footer>`}</main></body></html>`
    .value;
}

const petitionLink = (slug: string, title: string, variant: GuestFormVariant) =>
  html`<p><a href="${petitionPagePath(slug)}"${variant === 'widget' ? trusted(' target="_blank" rel="noopener"') : ''}>Back to “${title}”</a></p>`;

/** After a form that passed its checks, whatever the address: never says whether it has signed or has an account. */
export function checkYourEmail(petition: { slug: string; title: string }, email: string, variant: GuestFormVariant): GuestPage {
  return {
    title: 'Check your email',
    body: html`<h1>Check your email</h1><p role="status">We have sent a message to <strong>${email}</strong> about your signature of
“${petition.title}”. Click the link in it to confirm: your signature counts once you do. It can take a few minutes to arrive.</p>
${petitionLink(petition.slug, petition.title, variant)}`,
  };
}

/** The form again, with what the signer typed and what is wrong with it (the token slot is filled by the answer). */
export function formWithErrors(
  petition: { slug: string; title: string },
  values: GuestFormValues,
  errors: GuestFormErrors,
  variant: GuestFormVariant,
): GuestPage {
  return {
    title: `Sign: ${petition.title}`,
    body: html`<h1>Sign “${petition.title}”</h1>${guestSignForm(guestSignPath(petition.slug, variant), values, errors)}`,
  };
}

/** Any refusal: a heading and a sentence, and where to go from here. */
export function refusalPage(heading: string, text: string, back?: { slug: string; title: string }): GuestPage {
  return {
    title: heading,
    body: html`<h1>${heading}</h1><p class="notice" role="alert">${text}</p>${back ? petitionLink(back.slug, back.title, 'page') : ''}`,
  };
}

/** The link's landing page: one button that confirms (POST to the same address). */
export function confirmStep(petitionTitle: string): GuestPage {
  return {
    title: 'Confirm your signature',
    body: html`<h1>Confirm your signature</h1><p>You are about to sign “${petitionTitle}”.</p>
<form method="post"><button class="btn" type="submit">Confirm my signature</button></form>`,
  };
}

const setPasswordLink = (email: string) =>
  html`<p>Want to sign without an email next time? <a href="/signup?email=${encodeURIComponent(email)}">Set a password for your Rally account</a>.</p>`;

export function confirmedPage(petition: { slug: string }, email: string, count: number): GuestPage {
  return {
    title: 'Thank you for signing',
    body: html`<h1>Thank you: your signature is confirmed</h1><p role="status">The petition now has <strong>${count.toLocaleString('en-US')}</strong>
${count === 1 ? 'signature' : 'signatures'}.</p><p><a href="${petitionPagePath(petition.slug)}">See the petition</a></p>${setPasswordLink(email)}`,
  };
}

export function alreadyPage(petition: { slug: string }, email: string, kind: 'already_confirmed' | 'already_signed'): GuestPage {
  const text =
    kind === 'already_confirmed'
      ? 'Your signature was confirmed already; it is counted once.'
      : 'This address had already signed this petition; it is counted once.';
  return {
    title: 'Already signed',
    body: html`<h1>You have already signed</h1><p role="status">${text}</p>
<p><a href="${petitionPagePath(petition.slug)}">See the petition</a></p>${setPasswordLink(email)}`,
  };
}

/** Fills the form token into a rendered page (every form of it). */
export const withFormToken = (page: string, token: string) => page.replaceAll(FORM_TOKEN_SLOT, token);
