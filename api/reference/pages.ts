// Server-rendered HTML for the reference pages. Everything interpolated is escaped.
import { html, trusted, type SafeHtml } from '../pages/html.ts';

const STYLE = trusted(`body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;padding:.1rem .3rem}pre{padding:.6rem;overflow:auto}
.op{border-top:1px solid #ddd;padding:.6rem 0}.method{font-weight:700;text-transform:uppercase;display:inline-block;width:4.5rem}
.dep{color:#a40}details{margin:.3rem 0}`);

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`
    .value;
}

type Operation = {
  operationId: string;
  summary: string;
  tags: string[];
  deprecated?: boolean;
  security?: object[];
  'x-rally-permission'?: string;
  parameters?: { name: string; in: string; required: boolean; description?: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
};

function renderOperation(method: string, path: string, operation: Operation): SafeHtml {
  const auth = operation.security?.length
    ? `auth: ${operation.security.some((entry) => Object.keys(entry).length === 0) ? 'optional' : 'required'}`
    : 'auth: none';
  const permission = operation['x-rally-permission'] ? html`, permission: <code>${operation['x-rally-permission']}</code>` : '';
  const params = (operation.parameters ?? []).map(
    (param) => html`<li><code>${param.name}</code> (${param.in}${param.required ? ', required' : ''}) ${param.description}</li>`,
  );
  const body = operation.requestBody
    ? html`<details><summary>Request body</summary><pre>${JSON.stringify(operation.requestBody.content['application/json']?.schema, null, 2)}</pre></details>`
    : '';
  const responses = Object.entries(operation.responses).map(
    ([status, response], index) => html`${index ? ' · ' : ''}<code>${status}</code> ${response.description}`,
  );
  return html`<div class="op" id="${operation.operationId}"><span class="method">${method}</span><code>${path}</code>
 ${operation.deprecated ? html`<span class="dep">deprecated</span>` : ''}<div>${operation.summary} <small>(${auth}${permission})</small></div>
 ${params.length ? html`<ul>${params}</ul>` : ''}${body}<div><small>${responses}</small></div></div>`;
}

// Static paragraphs of the reference page, written apart so that no source line outgrows the formatter's width.
const MACHINE_READABLE = trusted(
  '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a>. Errors are RFC 7807 problems; each <code>type</code> links to its explanation ' +
    'under <a href="/problems/not-found">/problems/</a>.</p>',
);
const AUTHENTICATION = trusted(
  '<p>Send <code>Authorization: Bearer &lt;access token or API key&gt;</code> (<code>X-API-Key</code> still works, deprecated). ' +
    'Each route below names the permission it needs; an API key grants:</p>',
);

export function renderDocsPage(document: Record<string, unknown>): string {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const byTag = new Map<string, SafeHtml[]>();
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = operation.tags[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), renderOperation(method, path, operation)]);
    }
  }
  const info = document.info as { title: string; version: string; description: string };
  const sections = [...byTag.entries()].map(([tag, operations]) => html`<h2 id="${tag}">${tag}</h2>${operations}`);
  const scopes = Object.entries(document['x-rally-api-key-scopes'] as Record<string, { permissions: string[]; description: string }>).map(
    ([scope, entry]) => html`<tr><td><code>${scope}</code></td><td>${entry.permissions.join(', ')}</td><td>${entry.description}</td></tr>`,
  );
  const toc = [...byTag.keys()].map((tag, index) => html`${index ? ' · ' : ''}<a href="#${tag}">${tag}</a>`);
  return page(
    `${info.title} reference`,
    html`<h1>${info.title} <small>${info.version}</small></h1><p>${info.description}</p>
${MACHINE_READABLE}
<h2 id="authentication">Authentication and API key scopes</h2>
${AUTHENTICATION}
<table><tr><th>scope</th><th>permissions</th><th></th></tr>${scopes}</table>
<p>The <code>admin</code> permission also needs the key's owner to be an administrator.</p>
<p>${toc}</p>${sections}`,
  );
}

export function renderProblemPage(slug: string, problem: { status: number; title: string; about: string }): string {
  const heading = html`<h1>${problem.title}</h1><p>HTTP status <code>${problem.status}</code>, type slug <code>${slug}</code>.</p>`;
  return page(`${problem.title} (${problem.status})`, html`${heading}<p>${problem.about}</p><p><a href="/docs">API reference</a></p>`);
}
