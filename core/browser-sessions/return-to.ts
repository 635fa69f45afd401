// Where a browser goes back to after logging in or out: a path on Rally's own origin, never another
// site (an open redirect would let a phishing link borrow Rally's address). Anything doubtful falls
// back to the default.

export const DEFAULT_RETURN_PATH = '/account';

const MAX_LENGTH = 1_000;

/** `value` as a same-origin path with its query (no scheme, host, backslash or control character), else the default. */
export function safeReturnPath(value: unknown, fallback = DEFAULT_RETURN_PATH): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return fallback;
  // "//evil.example" and "/\evil.example" are read by browsers as other hosts; control characters
  // (tabs, newlines) are stripped by URL parsers, which turns "/\t/evil.example" into "//evil.example".
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  let parsed: URL;
  try {
    parsed = new URL(value, 'http://rally.invalid');
  } catch {
    return fallback;
  }
  if (parsed.origin !== 'http://rally.invalid') return fallback;
  return `${parsed.pathname}${parsed.search}`;
}
