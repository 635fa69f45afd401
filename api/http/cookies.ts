// The cookies of Rally's browser pages, written by hand so every attribute is deliberate: HttpOnly, SameSite=Lax (sent on top-level navigations such as the
// identity provider's redirect back, never on another site's form POST or fetch), host-only (no Domain, so no sibling host gets them), Path=/.

export type CookiePolicy = { secure: boolean };

// Secure whenever Rally is served over https, and in production always; only a development or test instance on
// plain http goes without, since browsers drop Secure cookies there. With Secure the names take the __Host-
// prefix, which browsers only accept from a secure, host-only, Path=/ Set-Cookie.
export function cookiePolicy(publicUrl: string, nodeEnv: string): CookiePolicy {
  return { secure: new URL(publicUrl).protocol === 'https:' || nodeEnv === 'production' };
}

export const SESSION_COOKIE = 'rally_session';
export const LOGIN_COOKIE = 'rally_login';

export const cookieName = (policy: CookiePolicy, base: string) => (policy.secure ? `__Host-${base}` : base);

/** The Set-Cookie value for `name=value`, kept for `maxAgeSeconds` (0 deletes it). */
export function setCookie(policy: CookiePolicy, base: string, value: string, maxAgeSeconds: number): string {
  const attributes = [`${cookieName(policy, base)}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax'];
  if (policy.secure) attributes.push('Secure');
  return attributes.join('; ');
}

/** The value of one cookie of a Cookie header; undefined when absent or given more than once (which a planted cookie would cause). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const values = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return values.length === 1 ? values[0] : undefined;
}
