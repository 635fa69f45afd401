// Logging in on the embedded provider's form over HTTP, as a browser does: Rally's authorization
// request (code flow, PKCE) opens an interaction and its cookies, the form is posted from the
// provider's own page, and the browser keeps what it is given, the device cookie among them.
import { createHash, randomBytes } from 'node:crypto';
import { headerOf, requestFrom, type BoundAnswer } from './bound-client.ts';

export type FormLogin = { status: number; retryAfter: string | undefined; deviceCookie: string | undefined; page: string };

const setCookies = (answer: BoundAnswer) => {
  const header = answer.headers['set-cookie'];
  return (Array.isArray(header) ? header : header ? [header] : []).map((line) => line.split(';')[0]!);
};

/**
 * Opens a login on `issuer` for `client` and submits the form with `person`'s credentials from
 * `address`, sending `deviceCookie` (the cookie's value) when the browser holds one.
 */
export async function logInOnForm(
  issuer: string,
  client: { clientId: string; redirectUri: string },
  person: { email: string; password: string },
  options: { address?: string; deviceCookie?: string } = {},
): Promise<FormLogin> {
  const address = options.address ?? '127.0.0.1';
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const opened = await requestFrom(address, `${issuer}/auth?${query}`);
  const interaction = headerOf(opened, 'location');
  if (!interaction?.startsWith('/interaction/')) throw new Error(`no interaction opened: ${opened.status} ${opened.body}`);
  const jar = [...setCookies(opened), ...(options.deviceCookie ? [`rally_device=${options.deviceCookie}`] : [])];
  const answer = await requestFrom(address, `${issuer}${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuer, cookie: jar.join('; ') },
    body: new URLSearchParams({ email: person.email, password: person.password }).toString(),
  });
  const device = setCookies(answer).find((cookie) => cookie.startsWith('rally_device='));
  return {
    status: answer.status,
    retryAfter: headerOf(answer, 'retry-after'),
    deviceCookie: device?.slice('rally_device='.length),
    page: answer.body,
  };
}
