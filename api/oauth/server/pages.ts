// The HTML the user sees during authorization: the consent screen and the page for a request that cannot safely go back to the app (RFC 6749 4.1.2.1), written
// into the provider's Koa context (consent.ts, its renderError) as well as Rally's. Every value is escaped; the page may not be framed, its one script (by
// hash) arms Approve after half a second (armed-buttons.ts), and its form may only post here and follow the redirects back to the app.
import type { ParameterizedContext } from 'koa';
import type { ErrorOut } from 'oidc-provider';
import type { AppOwner } from '../../../core/oauth/app-identity.ts';
import { htmlPolicies, sendOriginWithForms } from '../../http/security-headers.ts';
import { ARM_BUTTONS_SCRIPT, ARM_BUTTONS_SCRIPT_HASH, ARM_DELAY_MS, ARMED_BUTTON } from '../../http/armed-buttons.ts';
import { html, trusted, type SafeHtml } from '../../../platform/html.ts';

type PageContext = Pick<ParameterizedContext, 'status' | 'type' | 'body' | 'set'>;

const STYLE = trusted(`body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}ul{padding-left:1.2rem}li{margin:.4rem 0}.actions{display:flex;gap:1rem;margin-top:2rem}
button{font-size:1rem;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #555;background:#fff;cursor:pointer}
button[value=approve]{background:#0b5cad;color:#fff;border-color:#0b5cad}button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
button:disabled{opacity:.6;cursor:wait}.owner{color:#444}`);

function send(ctx: PageContext, status: number, title: string, body: SafeHtml, form?: { target: string }) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', htmlPolicies.oauthConsent(form && { redirectOrigin: form.target, scriptHash: ARM_BUTTONS_SCRIPT_HASH }));
  // The form's answer must carry its true Origin (the consent route checks it, as every form's).
  if (form) sendOriginWithForms(ctx);
  ctx.body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`.value;
}

export type ConsentView = { appName: string; owner: AppOwner; scopeDescriptions: string[]; action: string; redirectOrigin: string };

/** Who registered the app, which its name alone does not prove. */
function ownerLine(owner: AppOwner): SafeHtml {
  if (owner.kind === 'operator') return html`<p class="owner">Registered by the operators of this Rally site.</p>`;
  return owner.emailVerified
    ? html`<p class="owner">Registered by <strong>${owner.name}</strong>, a Rally user with a verified email address at ${owner.emailDomain}, not by Rally.</p>`
    : html`<p class="owner">Registered by <strong>${owner.name}</strong>, a Rally user whose email address is not verified, not by Rally.</p>`;
}

export function sendConsentPage(ctx: PageContext, view: ConsentView) {
  send(
    ctx,
    200,
    `Authorize ${view.appName}`,
    html`<main>
<h1><strong>${view.appName}</strong> wants to use your Rally account</h1>
${ownerLine(view.owner)}
<p>If you approve, ${view.appName} will be able to:</p>
<ul>${view.scopeDescriptions.map((text) => html`<li>${text}</li>`)}</ul>
<p>It cannot see your password. You can take this access back at any time.</p>
<form method="post" action="${view.action}">
<div class="actions"><button type="submit" name="decision" value="approve"${ARMED_BUTTON}>Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
<noscript><p>Approve needs JavaScript: it waits ${ARM_DELAY_MS / 1000} seconds after this page appears,
so a click meant for another page cannot approve.</p></noscript>
</form></main><script>${trusted(ARM_BUTTONS_SCRIPT)}</script>`,
    { target: view.redirectOrigin },
  );
}

export function sendErrorPage(ctx: PageContext, message: string, status: 400 | 403 = 400) {
  send(
    ctx,
    status,
    'Authorization failed',
    html`<main><h1>This authorization request cannot be completed</h1><p>${message}</p>
<p>Nothing was shared. Return to the app and try again, or tell its developer.</p></main>`,
  );
}

// The provider's descriptions are written for developers; the two a user meets most are said plainly.
const PLAIN_WORDS: Record<string, string> = {
  invalid_client: 'No app is registered under this client_id.',
  invalid_redirect_uri: 'This redirect_uri is not registered for the app.',
};

/** The provider's renderError: a request it cannot send back to the app is explained to the user. */
export async function renderProviderError(ctx: PageContext, out: ErrorOut): Promise<void> {
  sendErrorPage(ctx, PLAIN_WORDS[out.error] ?? out.error_description ?? out.error);
}
