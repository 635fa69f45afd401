// Small helpers for reading API answers in tests.

/** The parsed JSON body; tests assert on its shape, so it is typed loosely on purpose. */
export async function json(response: Response): Promise<any> {
  return response.json();
}

/**
 * A real cursor with a NUL byte put into its last string (the list's position, after any tag):
 * the hostile cursor a client forges from one it was given. Cursors are opaque, so this reads the
 * bytes the way an attacker would, not the way the API builds them.
 */
export function cursorWithNul(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const at = text.lastIndexOf('"', text.lastIndexOf('"') - 1) + 1;
  return Buffer.from(`${text.slice(0, at)}\\u0000${text.slice(at)}`, 'utf8').toString('base64url');
}
