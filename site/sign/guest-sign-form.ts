// The guest signing form of the petition page and the widget: a plain HTML form that works without JavaScript. Every field has a label; an error stands next to
// its field (aria-describedby, aria-invalid) and in a summary above the form (role=alert) whose links move focus to the field.
import type { PublicPetition } from '../../core/public-petition.ts';
import { html, trusted, type SafeHtml } from '../../platform/html.ts';
import { petitionPagePath } from '../../api/http/petition-urls.ts';

export const GUEST_FORM_FIELDS = { name: 'name', email: 'email', comment: 'comment', anonymous: 'anonymous', consent: 'consent' } as const;
/**
 * The honeypot's name: a plausible field a bot fills.
 * The honeypot field is out of sight and out of the tab order: a person leaves it empty, a form-filling bot
 * does not.
 */
export const HONEYPOT_FIELD = 'website';
export const FORM_TOKEN_FIELD = 'form_token';
/**
 * Stands in for the form token in a rendered page until the answer writes the real one (the ETag is of the page without it).
 * The form token (core/guest-signatures/tokens.ts) is written into the page last, per answer, in place of this
 * slot.
 */
export const FORM_TOKEN_SLOT = '__RALLY_GUEST_FORM_TOKEN__';

export type GuestFormValues = { name: string; email: string; comment: string; anonymous: boolean; consent: boolean };
export type GuestFormErrors = Partial<Record<keyof GuestFormValues | 'form', string>>;

export const EMPTY_GUEST_FORM: GuestFormValues = { name: '', email: '', comment: '', anonymous: false, consent: false };

/** Keeps the honeypot out of sight without an inline style (the pages' CSP has none). */
export const GUEST_FORM_CSS =
  `.gs{display:grid;gap:.8rem;margin:1rem 0}.gs label{display:block;font-weight:600}` +
  `.gs input[type=text],.gs input[type=email],.gs textarea{width:100%;` +
  `padding:.5rem;border:1px solid var(--mu);border-radius:.3rem;background:var(--bg);color:var(--fg);font:inherit}` +
  `.gs .ck label{display:inline;font-weight:400}` +
  `.gs input:focus-visible,.gs textarea:focus-visible,.gs button:focus-visible{outline:3px solid var(--fg);outline-offset:2px}` +
  `.gs button{justify-self:start;border:0;cursor:pointer;font:inherit}.gs .er{color:var(--fg);background:var(--nb);padding:.2rem .4rem;margin:.2rem 0 0}` +
  `.gs .hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}.gs-sum{border:2px solid var(--fg);padding:.6rem;border-radius:.4rem}`;

const LABELS: Record<keyof GuestFormValues, string> = {
  name: 'Your name',
  email: 'Your email address',
  comment: 'Why are you signing? (optional)',
  anonymous: "Don't show my name on the petition",
  consent: "The petition's creator may email me about this petition",
};

function errorOf(errors: GuestFormErrors, field: keyof GuestFormValues): SafeHtml {
  const message = errors[field];
  return message ? html`<p class="er" id="${field}-error">${message}</p>` : html``;
}

const described = (errors: GuestFormErrors, field: keyof GuestFormValues) =>
  errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : html``;

function summary(errors: GuestFormErrors): SafeHtml {
  const fields = (Object.keys(LABELS) as (keyof GuestFormValues)[]).filter((field) => errors[field]);
  if (fields.length === 0 && !errors.form) return html``;
  return html`<div class="gs-sum" role="alert" aria-labelledby="gs-sum-title"><h3 id="gs-sum-title">There is a problem</h3><ul>
${errors.form ? html`<li>${errors.form}</li>` : ''}${fields.map((field) => html`<li><a href="#gs-${field}">${errors[field]}</a></li>`)}</ul></div>`;
}

/**
 * The form; `action` is the page's or the widget's submit address.
 * The "may the creator contact me" box is never ticked for the signer.
 */
export function guestSignForm(action: string, values: GuestFormValues = EMPTY_GUEST_FORM, errors: GuestFormErrors = {}): SafeHtml {
  const text = (field: 'name' | 'email', type: string, extra: SafeHtml) =>
    html`<div><label for="gs-${field}">${LABELS[field]}</label>${errorOf(errors, field)}
<input type="${type}" id="gs-${field}" name="${field}" value="${values[field]}" required${extra}${described(errors, field)}></div>`;
  const box = (field: 'anonymous' | 'consent') =>
    html`<div class="ck"><input type="checkbox" id="gs-${field}" name="${field}" value="1"${values[field] ? trusted(' checked') : ''}>
<label for="gs-${field}">${LABELS[field]}</label></div>`;
  return html`${summary(errors)}<form class="gs" method="post" action="${action}" novalidate>
${text('name', 'text', html` maxlength="100" autocomplete="name"`)}
${text('email', 'email', html` maxlength="254" autocomplete="email" spellcheck="false"`)}
<div><label for="gs-comment">${LABELS.comment}</label>${errorOf(errors, 'comment')}
<textarea id="gs-comment" name="comment" rows="3" maxlength="500"${described(errors, 'comment')}>${values.comment}</textarea></div>
${box('anonymous')}${box('consent')}
<div class="hp" aria-hidden="true"><label for="gs-${HONEYPOT_FIELD}">Leave this field empty</label>
<input type="text" id="gs-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></div>
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${trusted(FORM_TOKEN_SLOT)}">
<button class="btn" type="submit">Sign this petition</button>
<p class="mu">We will email you a link: your signature counts once you click it.</p></form>`;
}

export type GuestFormVariant = 'page' | 'widget';

/** Where the form of the page or of the widget posts (the widget's answer stays in the iframe). */
export const guestSignPath = (slug: string, variant: GuestFormVariant) => `${variant === 'widget' ? '/embed' : ''}${petitionPagePath(slug)}/sign-by-email`;

/** The form under "How to sign" on the page and in the widget, for a petition that takes signatures. */
export function guestSigning(petition: PublicPetition['petition'], variant: GuestFormVariant): SafeHtml {
  if (petition.status !== 'active') return html``;
  const intro = html`<p>Sign with your name and email address. We email you a link, and your signature counts once you click it.</p>`;
  return html`${intro}${guestSignForm(guestSignPath(petition.slug, variant))}`;
}
