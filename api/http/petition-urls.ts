// The public addresses of a petition ({site_url} is PUBLIC_URL, conventions): its page, its widget
// and its oEmbed answer. One place, so links, oEmbed and embed codes agree.

export type WidgetOptions = { theme?: 'light' | 'dark' | 'auto'; showDescription?: boolean };

export const petitionPagePath = (slug: string) => `/p/${encodeURIComponent(slug)}`;

export const petitionPageUrl = (publicUrl: string, slug: string) => `${publicUrl}${petitionPagePath(slug)}`;

export function widgetUrl(publicUrl: string, slug: string, options: WidgetOptions = {}): string {
  const query = new URLSearchParams();
  if (options.theme && options.theme !== 'light') query.set('theme', options.theme);
  if (options.showDescription) query.set('description', '1');
  const search = query.toString();
  return `${publicUrl}/embed/p/${encodeURIComponent(slug)}${search ? `?${search}` : ''}`;
}

export function oembedUrl(publicUrl: string, slug: string): string {
  return `${publicUrl}/v1/oembed?${new URLSearchParams({ url: petitionPageUrl(publicUrl, slug), format: 'json' })}`;
}

/** The slug of a petition page address on this site, or null for any other address. */
export function slugOfPageUrl(publicUrl: string, address: string): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (url.origin !== new URL(publicUrl).origin || url.username || url.password) return null;
  const match = /^\/p\/([a-z0-9-]{1,100})\/?$/.exec(url.pathname);
  return match ? match[1]! : null;
}
