// The document GET /openapi.json serves and /docs renders: the committed openapi.json (written by `npm run openapi`, kept current by
// test/api/openapi-document.test.ts), read once at start, with this installation's PUBLIC_URL wherever the committed one names the default address. Serving the
// file instead of building it keeps the schema walk and example checks out of every API start.
import { readFileSync } from 'node:fs';

/** The address the committed document is written for: `npm start`'s default PUBLIC_URL. */
export const DOCUMENT_SERVER = 'http://localhost:3000';
const COMMITTED = new URL('../../openapi.json', import.meta.url);

export function servedDocument(committedText: string, publicUrl: string): Record<string, unknown> {
  const document = JSON.parse(committedText.replaceAll(DOCUMENT_SERVER, publicUrl)) as Record<string, unknown>;
  return { ...document, servers: [{ url: publicUrl, description: 'This Rally installation' }] };
}

export function loadServedDocument(publicUrl: string): Record<string, unknown> {
  return servedDocument(readFileSync(COMMITTED, 'utf8'), publicUrl);
}
