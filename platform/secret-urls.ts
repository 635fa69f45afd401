// The credentials Rally's own URLs carry, masked wherever a URL is written down (request and error logs, and trace span attributes: http.target, http.url,
// url.path, url.full, url.query). Anyone who can read logs or traces could otherwise answer as a decision maker, unsubscribe someone, join an organization,
// open a private petition or upload in someone's name.

const MASK = '[redacted]';
// A URL inside another URL's query (the login's return_to holding an OAuth authorization request)
// writes its `/`, `?`, `&`, `=` and `#` percent-encoded (%2F…); inside a third, encoded twice (%252F…).
// Credentials are masked down to this depth of nesting.
const MAX_NESTING = 3;

/** `raw` (a character class) as written at nesting `level`: itself at 0, `hex` encoded `level` times after. */
const at = (level: number, raw: string, hex: string) => (level === 0 ? raw : `%(?:25){${level - 1}}(?:${hex})`);
/** What ends a value at `level`: a separator of that level or of any level around it, a quote or a space. */
const endAt = (level: number, raw: string, hex: string) => `[${raw}\\s"'<>]${level === 0 ? '' : `|%(?:25){0,${level - 1}}(?:${hex})`}`;
const masking = (prefix: string, end: string, least: '*' | '+') => new RegExp(`(${prefix})(?:(?!${end})[^])${least}`, 'gi');
const levels = Array.from({ length: MAX_NESTING + 1 }, (_, level) => level);

// A path segment is the credential itself on the decision-maker portal (/respond/{token}), the one-click
// unsubscribe link, invitation acceptance, a guest signature's confirmation link and its "never email me again"
// link.
// The segment after each prefix, up to the next `/`, `?`, `#`, quote or space (encoded: or `&`).
const SEGMENT_PREFIXES = ['respond', 'v1/notifications/unsubscribe', 'v1/invitations', 'signatures/confirm', 'guest-emails/unsubscribe'];
const SECRET_SEGMENTS = levels.map((level) => {
  const slash = at(level, '/', '2F');
  const prefixes = SEGMENT_PREFIXES.map((prefix) => prefix.split('/').join(slash)).join('|');
  return masking(`${slash}(?:${prefixes})${slash}`, level === 0 ? endAt(0, '/?#', '') : endAt(level, '/?#&', '2F|3F|23|26'), '+');
});

// A query parameter is on a private petition (access_code), a local upload URL (signature) and an OAuth
// authorization request (state, and code should a client ever send one). Parameters named like credentials
// anywhere (token, secret, password, key) are masked too, so a client that puts one in a URL does not put it in
// our logs.
// `name=value` after `?` or `&`, up to the next `&`, `#`, quote or space.
const PARAMETER_NAMES = 'access_code|signature|state|code|[A-Za-z_]*(?:token|secret|password|key)';
const SECRET_PARAMETERS = levels.map((level) =>
  masking(`${at(level, '[?&]', '3F|26')}(?:${PARAMETER_NAMES})${at(level, '=', '3D')}`, endAt(level, '&#', '26|23'), '*'),
);

/** `text` (a path, a URL, or a whole log line holding URLs) with every credential Rally's URLs carry masked, plain or percent-encoded. */
export function redactSecretUrls(text: string): string {
  let masked = text;
  for (const pattern of [...SECRET_SEGMENTS, ...SECRET_PARAMETERS]) masked = masked.replace(pattern, `$1${MASK}`);
  return masked;
}
