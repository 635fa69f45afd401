// Where a browser goes back to after logging in or out: a path on Rally's own origin, never another
// site (an open redirect would let a phishing link borrow Rally's address). The result is what is
// checked, not the input: resolving dot segments turns "/.//evil.example" into "//evil.example".

export const DEFAULT_RETURN_PATH = '/account';

const MAX_LENGTH = 1_000;
const BASE = 'http://rally.invalid';
// A backslash or a control character: URL parsers read "\" as "/" and drop tabs and newlines.
const BENT = /[\\\u0000-\u001f\u007f]/;
// A path a browser reads as another host ("//host", "/\host").
const OTHER_HOST = /^\/[/\\]/;
// Decoding stops here: a value encoded more often than this is refused rather than trusted.
const MAX_DECODINGS = 3;

/** Whether a path, decoded as often as something on the way might decode it, still names this site only. */
function staysHome(pathname: string): boolean {
  let path = pathname;
  for (let round = 0; round <= MAX_DECODINGS; round++) {
    if (OTHER_HOST.test(path) || BENT.test(path)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return false;
    }
    if (decoded === path) return true;
    path = decoded;
  }
  return false;
}

/** The same-origin path and query that `value` resolves to, or undefined. */
function resolvedPath(value: string): string | undefined {
  if (!value.startsWith('/') || OTHER_HOST.test(value) || BENT.test(value)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value, BASE);
  } catch {
    return undefined;
  }
  if (parsed.origin !== BASE || !staysHome(parsed.pathname)) return undefined;
  const result = `${parsed.pathname}${parsed.search}`;
  // Once more on what will be sent: it must resolve to itself, on this origin.
  const again = new URL(result, BASE);
  return again.origin === BASE && `${again.pathname}${again.search}` === result && !BENT.test(result) ? result : undefined;
}

/** `value` as a same-origin path with its query (no scheme, host, backslash or control character, before or after decoding), else the fallback. */
export function safeReturnPath(value: unknown, fallback = DEFAULT_RETURN_PATH): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return fallback;
  return resolvedPath(value) ?? fallback;
}
