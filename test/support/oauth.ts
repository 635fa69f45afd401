// OAuth apps for tests: registered through the operator's CLI, and the consent steps a user takes
// (with their login token), driven over plain HTTP.
import { createServer, type Server } from 'node:http';
import { freePort, PUBLIC_URL, runRallyCli } from './processes.ts';
import { bearer } from './identity.ts';

export type RegisteredApp = { client_id: string; client_secret?: string; name: string; redirect_uris: string[]; scopes: string[] };

export async function registerApp(options: {
  name?: string;
  redirectUris: string[];
  scopes?: string;
  confidential?: boolean;
  ownerEmail?: string;
}): Promise<RegisteredApp> {
  const args = ['oauth-clients', 'create', '--name', options.name ?? 'Campaign Tool'];
  for (const uri of options.redirectUris) args.push('--redirect-uri', uri);
  if (options.scopes) args.push('--scopes', options.scopes);
  if (options.confidential) args.push('--confidential');
  if (options.ownerEmail) args.push('--owner-email', options.ownerEmail);
  const { stdout } = await runRallyCli(args);
  return JSON.parse(stdout) as RegisteredApp;
}

/** GET /oauth/authorize as the logged-in user, without following the redirect. */
export function authorize(baseUrl: string, accessToken: string | undefined, params: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, { headers: accessToken ? bearer(accessToken) : {}, redirect: 'manual' });
}

/** Where the consent screen's form posts its answer (the path of its interaction). */
export function consentFormActionOf(html: string): string {
  const match = /<form method="post" action="(\/oauth\/interaction\/[^"]+)"/.exec(html);
  if (!match) throw new Error(`no consent form on the page:\n${html}`);
  return match[1]!;
}

/** The cookies an answer set, as a Cookie header value (the browser that was shown the screen holds them). */
export function browserCookiesOf(page: Response, before?: string): string | undefined {
  const jar = new Map(
    (before ?? '')
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.split('=')[0]!, pair] as const),
  );
  for (const cookie of page.headers.getSetCookie()) {
    const pair = cookie.split(';')[0]!;
    jar.set(pair.split('=')[0]!, pair);
  }
  return jar.size > 0 ? [...jar.values()].join('; ') : undefined;
}

/** Who answers a consent form: the browser's cookies (none: a browser that never saw the screen), the user's Bearer, and headers a browser adds. */
export type Decider = { cookie?: string; token?: string; headers?: Record<string, string> };

/**
 * The consent form's answer, posted to `action` from Rally's page (its Origin) by `as`, and the
 * redirect it leads to followed as a browser would, up to the answer that goes back to the app (or
 * the first that does not redirect within Rally).
 */
export async function decide(baseUrl: string, action: string | undefined, decision: 'approve' | 'deny', as: Decider = {}): Promise<Response> {
  const { cookie, token } = as;
  let answer = await fetch(`${baseUrl}${action ?? '/oauth/interaction/unknown'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: PUBLIC_URL,
      ...(cookie ? { cookie } : {}),
      ...(token ? bearer(token) : {}),
      ...as.headers,
    },
    body: new URLSearchParams({ decision }).toString(),
    redirect: 'manual',
  });
  let jar = browserCookiesOf(answer, cookie);
  for (let hops = 0; hops < 3 && answer.status === 303; hops++) {
    const next = new URL(answer.headers.get('location')!, baseUrl);
    if (next.origin !== new URL(baseUrl).origin) break;
    answer = await fetch(next, { headers: jar ? { cookie: jar } : {}, redirect: 'manual' });
    jar = browserCookiesOf(answer, jar);
  }
  return answer;
}

/** Consent screen, then Approve: the redirect's query (code, state or error). */
export async function approveConsent(baseUrl: string, accessToken: string, params: Record<string, string>): Promise<URLSearchParams> {
  const page = await authorize(baseUrl, accessToken, params);
  const decided =
    page.status === 200
      ? await decide(baseUrl, consentFormActionOf(await page.text()), 'approve', { cookie: browserCookiesOf(page), token: accessToken })
      : page;
  const location = decided.headers.get('location');
  if (decided.status !== 302 || !location) throw new Error(`expected a redirect, got ${decided.status}: ${await decided.text()}`);
  return new URL(location).searchParams;
}

export function tokenRequest(baseUrl: string, params: Record<string, string>, options: { basic?: [string, string]; json?: boolean } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded' };
  if (options.basic) headers.authorization = `Basic ${Buffer.from(options.basic.map(encodeURIComponent).join(':')).toString('base64')}`;
  return fetch(`${baseUrl}/oauth/token`, { method: 'POST', headers, body: options.json ? JSON.stringify(params) : new URLSearchParams(params).toString() });
}

/** A stand-in for the app's callback page: answers 200 and remembers the URLs it was sent to. */
export async function startCallbackServer(): Promise<{ url: string; hits: URL[]; close(): Promise<void> }> {
  const port = await freePort();
  const hits: URL[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(new URL(request.url ?? '/', `http://127.0.0.1:${port}`));
    response.writeHead(200, { 'content-type': 'text/plain' }).end('back in the app');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}/callback`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
