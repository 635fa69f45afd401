// The "How to sign" section of the petition page for people with an account: a link to log in (or create an account) for a visitor, "Sign as <name>" with the
// spec's options for a logged-in person, "You signed" once they have. One plain form (no script needed); errors are written next to their field and in a
// summary announced to screen readers (role=alert) that the page focuses.
import type { BrowserUser } from '../../core/browser-sessions/sessions.ts';
import type { OwnSignature } from '../../core/signatures/own-signature.ts';
import { ARMED_BUTTON } from '../../api/http/armed-buttons.ts';
import { formatDate, html, type SafeHtml } from '../../platform/html.ts';
import { petitionPagePath } from '../../api/http/petition-urls.ts';

export const COMMENT_MAX_LENGTH = 500;

export type SignFormErrors = Partial<Record<'comment' | 'form', string>>;

export type SignPanelState =
  | { kind: 'visitor' }
  | { kind: 'unverified'; user: BrowserUser }
  | { kind: 'signed'; user: BrowserUser; signature: OwnSignature }
  | { kind: 'ready'; user: BrowserUser; csrfToken: string; via: 'page' | 'popup'; values?: { comment?: string; anonymous?: boolean }; errors?: SignFormErrors };

function summary(errors: SignFormErrors): SafeHtml {
  const entries = Object.entries(errors).filter(([, message]) => message);
  if (entries.length === 0) return html``;
  return html`<div class="summary" role="alert" tabindex="-1" id="sign-errors" autofocus><h3>Your signature was not recorded</h3><ul>${entries.map(
    ([field, message]) => (field === 'comment' ? html`<li><a href="#comment">${message}</a></li>` : html`<li>${message}</li>`),
  )}</ul></div>`;
}

function signForm(slug: string, state: Extract<SignPanelState, { kind: 'ready' }>): SafeHtml {
  const errors = state.errors ?? {};
  // The widget's popup is a window another site opens: its button answers only once the page has been seen.
  const popup = state.via === 'popup';
  const commentError = errors.comment ? html`<p class="err" id="comment-error">${errors.comment}</p>` : '';
  const described = errors.comment ? html` aria-describedby="comment-error" aria-invalid="true"` : '';
  return html`${summary(errors)}<form method="post" action="${petitionPagePath(slug)}/sign" class="sign-form">
<input type="hidden" name="csrf_token" value="${state.csrfToken}"><input type="hidden" name="via" value="${state.via}">
<label for="comment">Comment (optional, at most ${COMMENT_MAX_LENGTH} characters)</label>
<textarea id="comment" name="comment" rows="3" maxlength="${COMMENT_MAX_LENGTH}"${described}>${state.values?.comment ?? ''}</textarea>${commentError}
<p class="check"><input type="checkbox" id="is_anonymous" name="is_anonymous" value="1"${state.values?.anonymous ? html` checked` : ''}>
<label for="is_anonymous">Don't show my name publicly</label></p>
<button type="submit" class="btn"${popup ? ARMED_BUTTON : ''}>Sign as ${state.user.displayName}</button>${popup ? noScriptInPopup(slug) : ''}</form>`;
}

/** The popup's Sign button waits for its script (api/http/armed-buttons.ts); without script, the petition page signs. */
const noScriptInPopup = (slug: string) =>
  html`<noscript><p>Without JavaScript, <a href="${petitionPagePath(slug)}#sign" target="_blank">sign on the petition page</a>.</p></noscript>`;

export function signPanel(slug: string, state: SignPanelState): SafeHtml {
  const back = encodeURIComponent(petitionPagePath(slug));
  switch (state.kind) {
    case 'visitor':
      return html`<p>Log in to sign with one click, or create an account: it takes a name, an email address and a password.</p>
<p><a class="btn" href="/login?return_to=${back}">Log in to sign</a> <a href="/signup?return_to=${back}">Create an account</a></p>`;
    case 'unverified':
      return html`<p class="notice" role="status">You are logged in as ${state.user.displayName}, but your email address is not confirmed yet.
Open the link we emailed you, then <a href="/login?return_to=${back}">log in again</a> to sign (logging in sends a new link if yours is lost).</p>`;
    case 'signed':
      return html`<p class="notice" role="status" data-signed>You signed this petition on ${formatDate(state.signature.created_at)}${
        state.signature.is_anonymous ? ', without showing your name' : ''
      }. Thank you!</p>`;
    case 'ready':
      return signForm(slug, state);
  }
}

/** The widget's way to sign with an account: Rally's page in a popup (account-script.ts), or a new tab without script. */
export function widgetAccountLink(slug: string): SafeHtml {
  return html`<p class="acct"><a class="btn" href="${petitionPagePath(slug)}/sign-popup" target="_blank" data-account-popup>Sign with my account</a></p>
<p class="notice" role="status" data-widget-signed hidden>You signed this petition. Thank you!</p>`;
}
