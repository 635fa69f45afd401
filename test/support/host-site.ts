// "Someone else's site" for the embed tests: a plain HTTP server on its own local port (so another
// origin than Rally's) that serves a blog post around the HTML it is given, and a picture. The page
// records every rally:resize message it receives, with the origin it came from.
import { createServer, type Server } from 'node:http';
import { makePng } from './media.ts';

const RESIZE_LISTENER =
  "window.rallyResizes = []; addEventListener('message', function (e) { if (e.data && e.data.type === 'rally:resize') " +
  'window.rallyResizes.push({ origin: e.origin, height: e.data.height }); });';

export type HostSite = { origin: string; show(embedHtml: string): string; stop(): Promise<void> };

export async function startHostSite(): Promise<HostSite> {
  const picture = await makePng(800, 500);
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://host.local');
    if (url.pathname === '/picture.png') {
      response.writeHead(200, { 'content-type': 'image/png' }).end(picture);
      return;
    }
    if (url.pathname === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    const page = pages.get(url.pathname);
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    origin,
    /** Publishes a blog post embedding the given HTML; returns its address. */
    show(embedHtml) {
      const pathname = `/post-${pages.size + 1}`;
      pages.set(
        pathname,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A blog post</title></head><body>
<h1>Why our town needs this</h1><p>Please sign below.</p>
<script>${RESIZE_LISTENER}</script>
${embedHtml}
<p>Thanks for reading.</p></body></html>`,
      );
      return `${origin}${pathname}`;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
