// The embedded provider's own pages: log in, create an account, check your email, address verified. Plain HTML forms (no script), each field labelled, errors
// next to their field and in a summary that screen readers announce (role=alert), a visible focus ring, and colours of at least 4.5:1 contrast in the light and
// the dark scheme. The forms post only to this provider, which then redirects to Rally (form-action names both).
import { html, trusted, type SafeHtml } from '../platform/html.ts';

const STYLE = trusted(`:root{--bg:#fff;--fg:#1b1b1b;--mu:#4f4f4f;--ac:#0a58a8;--on:#fff;--bd:#767676;--er:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#151515;--fg:#f1f1f1;--mu:#c6c6c6;--ac:#8fc4ff;--on:#101010;--bd:#9a9a9a;--er:#ffb4ab}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,sans-serif}
main{max-width:28rem;margin:2rem auto;padding:0 1rem}a{color:var(--ac)}.mu{color:var(--mu)}label{display:block;font-weight:600;margin-top:1rem}
input{display:block;width:100%;font:inherit;padding:.5rem;margin-top:.25rem;border:1px solid var(--bd);border-radius:.3rem;background:var(--bg);color:var(--fg)}
button{margin-top:1.2rem;font:inherit;font-weight:700;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:var(--ac);color:var(--on);cursor:pointer}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--fg);outline-offset:2px}
.err{color:var(--er);margin:.25rem 0 0}.summary{border:2px solid var(--er);border-radius:.4rem;padding:.5rem 1rem}`);

/** Field name → message. */
export type FieldErrors = Partial<Record<'email' | 'password' | 'name' | 'form', string>>;

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Rally</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`.value;
}

const ids: Record<string, string> = { email: 'email', password: 'password', name: 'name' };

function summary(errors: FieldErrors): SafeHtml {
  const entries = Object.entries(errors).filter(([, message]) => message);
  if (entries.length === 0) return html``;
  return html`<div class="summary" role="alert" tabindex="-1" id="error-summary" autofocus><h2>There is a problem</h2><ul>${entries.map(([field, message]) =>
    ids[field] ? html`<li><a href="#${ids[field]}">${message}</a></li>` : html`<li>${message}</li>`,
  )}</ul></div>`;
}

function field(name: 'email' | 'password' | 'name', label: string, attributes: SafeHtml, errors: FieldErrors): SafeHtml {
  const error = errors[name];
  const described = error ? html` aria-describedby="${name}-error" aria-invalid="true"` : '';
  return html`<label for="${name}">${label}</label><input id="${name}" name="${name}" ${attributes}${described}>${
    error ? html`<p class="err" id="${name}-error">${error}</p>` : ''
  }`;
}

export function loginPage(uid: string, values: { email?: string }, errors: FieldErrors = {}): string {
  return page(
    'Log in',
    html`<h1>Log in to Rally</h1>${summary(errors)}
<form method="post" action="/interaction/${uid}/login" novalidate>
${field('email', 'Email address', html`type="email" autocomplete="email" required value="${values.email ?? ''}"`, errors)}
${field('password', 'Password', html`type="password" autocomplete="current-password" required`, errors)}
<button type="submit">Log in</button></form>
<p>No account yet? <a href="/interaction/${uid}?screen=signup">Create an account</a></p>`,
  );
}

export function signupPage(uid: string, values: { email?: string; name?: string }, errors: FieldErrors = {}): string {
  return page(
    'Create an account',
    html`<h1>Create a Rally account</h1>${summary(errors)}
<form method="post" action="/interaction/${uid}/signup" novalidate>
${field('name', 'Your name (shown when you sign)', html`type="text" autocomplete="name" required maxlength="100" value="${values.name ?? ''}"`, errors)}
${field('email', 'Email address', html`type="email" autocomplete="email" required value="${values.email ?? ''}"`, errors)}
${field('password', 'Password (at least 8 characters)', html`type="password" autocomplete="new-password" required minlength="8"`, errors)}
<button type="submit">Create account</button></form>
<p>Already have an account? <a href="/interaction/${uid}">Log in</a></p>`,
  );
}

export function checkEmailPage(email: string, loginUrl: string): string {
  return page(
    'Check your email',
    html`<h1>Check your email</h1><p role="status">We sent a link to <strong>${email}</strong>.
Open it to confirm your address: you can sign petitions once it is confirmed.</p>
<p><a href="${loginUrl}">Log in</a></p>`,
  );
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p>${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}`);
}
