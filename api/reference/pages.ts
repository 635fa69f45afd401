// Server-rendered HTML for the problem type pages. Everything interpolated is escaped.
import { html, trusted, type SafeHtml } from '../../platform/html.ts';

const STYLE = trusted(`body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;padding:.1rem .3rem}pre{padding:.6rem;overflow:auto}
.op{border-top:1px solid #ddd;padding:.6rem 0}.method{font-weight:700;text-transform:uppercase;display:inline-block;width:4.5rem}
.dep{color:#a40}details{margin:.3rem 0}`);

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`
    .value;
}

export function renderProblemPage(slug: string, problem: { status: number; title: string; about: string }): string {
  const heading = html`<h1>${problem.title}</h1><p>HTTP status <code>${problem.status}</code>, type slug <code>${slug}</code>.</p>`;
  return page(`${problem.title} (${problem.status})`, html`${heading}<p>${problem.about}</p><p><a href="/docs">API reference</a></p>`);
}
