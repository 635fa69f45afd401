// A tiny HTML templating module for the server-rendered pages: every interpolated value is escaped unless it is already SafeHtml (the output of `html` itself),
// so user-written text can never open a tag or leave an attribute. Attribute values are always written in double quotes by the templates. URLs from users go
// through safeHref, which lets only http(s) through.

export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

/** Markup written by us (never by a user), such as a precomputed stylesheet. */
export const trusted = (markup: string) => new SafeHtml(markup);

/** A user-given address as an href: http(s) only; anything else (javascript:, data:) becomes null. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

// Bare http(s) addresses in plain text become links; trailing punctuation stays text.
const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;

function linkify(line: string): SafeHtml {
  const parts: unknown[] = [];
  let last = 0;
  for (const match of line.matchAll(URL_IN_TEXT)) {
    const address = match[0].replace(/[.,;:!?)\]]+$/, '');
    const href = safeHref(address);
    parts.push(line.slice(last, match.index));
    parts.push(href ? html`<a href="${href}" rel="nofollow ugc noopener">${address}</a>` : address);
    last = match.index + address.length;
  }
  parts.push(line.slice(last));
  return html`${parts}`;
}

/** User text as paragraphs (blank lines), line breaks and links: nothing else of it is markup. */
export function paragraphs(text: string): SafeHtml {
  const blocks = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean);
  return html`${blocks.map((block) => html`<p>${block.split('\n').map((line, index) => html`${index ? html`<br>` : ''}${linkify(line)}`)}</p>`)}`;
}

/** The first sentences of user text on one line, for meta descriptions and widget excerpts. */
export function excerpt(text: string, maxLength: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxLength) return flat;
  const cut = flat.slice(0, maxLength - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > maxLength / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

const NUMBER = new Intl.NumberFormat('en-US');
export const formatNumber = (value: number) => NUMBER.format(value);

const DATE = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
export const formatDate = (iso: string) => DATE.format(new Date(iso));
