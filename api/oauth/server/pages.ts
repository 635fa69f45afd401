// The HTML the user sees during authorization: the consent screen and the page for a request that
// cannot safely go back to the app (unknown client, unregistered redirect_uri: RFC 6749 4.1.2.1).
// No scripts; every value is escaped; the page may not be framed (clickjacking) and its form may
// only post here and follow the redirects back to the app. Written into the provider's own Koa
// context (api/oauth/server/consent.ts, its renderError) as well as Rally's.
import type { ParameterizedContext } from 'koa';
import type { ErrorOut } from 'oidc-provider';
import { htmlPolicies } from '../../http/security-headers.ts';
import { html, trusted, type SafeHtml } from '../../pages/html.ts';

type PageContext = Pick<ParameterizedContext, 'status' | 'type' | 'body' | 'set'>;

const STYLE = trusted(`body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}ul{padding-left:1.2rem}li{margin:.4rem 0}.actions{display:flex;gap:1rem;margin-top:2rem}
button{font-size:1rem;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #555;background:#fff;cursor:pointer}
button[value=approve]{background:#0b5cad;color:#fff;border-color:#0b5cad}button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}`);

function send(ctx: PageContext, status: number, title: string, body: SafeHtml, formTarget?: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', htmlPolicies.oauthConsent(formTarget));
  ctx.body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`.value;
}

export type ConsentView = { appName: string; scopeDescriptions: string[]; action: string; redirectOrigin: string };

export function sendConsentPage(ctx: PageContext, view: ConsentView) {
  send(
    ctx,
    200,
    `Authorize ${view.appName}`,
    html`<main>
<h1><strong>${view.appName}</strong> wants to use your Rally account</h1>
<p>If you approve, ${view.appName} will be able to:</p>
<ul>${view.scopeDescriptions.map((text) => html`<li>${text}</li>`)}</ul>
<p>It cannot see your password. You can take this access back at any time.</p>
<form method="post" action="${view.action}">
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form></main>`,
    view.redirectOrigin,
  );
}

export function sendErrorPage(ctx: PageContext, message: string) {
  send(
    ctx,
    400,
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
