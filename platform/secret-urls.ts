// The credentials Rally's own URLs carry, masked wherever a URL is written down: request and error
// logs, and the attributes of trace spans (http.target, http.url, url.path, url.full, url.query).
// A path segment is the credential itself on the decision-maker portal (/respond/{token}), the
// one-click unsubscribe link, invitation acceptance, a guest signature's confirmation link and its
// "never email me again" link; a query parameter is on a private petition
// (access_code), a local upload URL (signature) and an OAuth authorization request (state, and
// code should a client ever send one). Parameters named like credentials anywhere (token, secret,
// password, key) are masked too, so a client that puts one in a URL does not put it in our logs.
// Anyone who can read logs or traces could otherwise answer as a decision maker, unsubscribe
// someone, join an organization, open a private petition or upload in someone's name.

const MASK = '[redacted]';

// The segment after each prefix, up to the next `/`, `?`, `#`, quote or space.
const SECRET_SEGMENTS = /(\/(?:respond|v1\/notifications\/unsubscribe|v1\/invitations|signatures\/confirm|guest-emails\/unsubscribe)\/)[^/?#\s"'<>]+/g;

// `name=value` after `?` or `&`, up to the next `&`, `#`, quote or space.
const SECRET_PARAMETERS = /([?&](?:access_code|signature|state|code|[A-Za-z_]*(?:token|secret|password|key))=)[^&#\s"'<>]*/gi;

/** `text` (a path, a URL, or a whole log line holding URLs) with every credential Rally's URLs carry masked. */
export function redactSecretUrls(text: string): string {
  return text.replace(SECRET_SEGMENTS, `$1${MASK}`).replace(SECRET_PARAMETERS, `$1${MASK}`);
}
