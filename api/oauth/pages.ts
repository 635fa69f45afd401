// The HTML the user sees during authorization: the consent screen and the page for a request that
// cannot safely go back to the app. No scripts; every value is escaped; the page may not be framed
// (clickjacking) and its form may only post here and follow our redirect to the app.
import type { RallyContext } from '../http/context.ts';
import { htmlPolicies } from '../http/security-headers.ts';
import { html, trusted, type SafeHtml } from '../pages/html.ts';

const STYLE = trusted(`body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}ul{padding-left:1.2rem}li{margin:.4rem 0}.actions{display:flex;gap:1rem;margin-top:2rem}
button{font-size:1rem;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #555;background:#fff;cursor:pointer}
button[value=approve]{background:#0b5cad;color:#fff;border-color:#0b5cad}button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}`);

function send(ctx: RallyContext, status: number, title: string, body: SafeHtml, formTarget?: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  // Framing and referrer headers come from the security headers middleware, like every answer's.
  ctx.set('Content-Security-Policy', htmlPolicies.oauthConsent(formTarget));
  ctx.body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`.value;
}

export function sendConsentPage(ctx: RallyContext, view: { appName: string; scopeDescriptions: string[]; ticket: string; redirectOrigin: string }) {
  send(
    ctx,
    200,
    `Authorize ${view.appName}`,
    html`<main>
<h1><strong>${view.appName}</strong> wants to use your Rally account</h1>
<p>If you approve, ${view.appName} will be able to:</p>
<ul>${view.scopeDescriptions.map((text) => html`<li>${text}</li>`)}</ul>
<p>It cannot see your password. You can take this access back at any time.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="consent_ticket" value="${view.ticket}">
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form></main>`,
    view.redirectOrigin,
  );
}

export function sendErrorPage(ctx: RallyContext, message: string) {
  send(
    ctx,
    400,
    'Authorization failed',
    html`<main><h1>This authorization request cannot be completed</h1><p>${message}</p>
<p>Nothing was shared. Return to the app and try again, or tell its developer.</p></main>`,
  );
}
