// The login form's device cookie (core/auth/device-cookies.ts) on the provider's origin: HttpOnly,
// SameSite=Strict (only this provider's own form sends it), host-only, Path=/; Secure with the
// __Host- prefix when the provider is served over https.
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_SECONDS } from '../core/auth/device-cookies.ts';

const nameFor = (issuer: string) => (new URL(issuer).protocol === 'https:' ? `__Host-${DEVICE_COOKIE}` : DEVICE_COOKIE);

/** The device cookie of a Cookie header; undefined when absent or sent twice. */
export function readDeviceCookie(header: string | undefined, issuer: string): string | undefined {
  const name = `${nameFor(issuer)}=`;
  const values = (header ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(name));
  return values.length === 1 ? values[0]!.slice(name.length) : undefined;
}

export function deviceCookieHeader(value: string, issuer: string): string {
  const secure = new URL(issuer).protocol === 'https:';
  return [
    `${nameFor(issuer)}=${value}`,
    'Path=/',
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
