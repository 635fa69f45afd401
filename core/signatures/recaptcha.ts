// reCAPTCHA check for signing, active only when RECAPTCHA_SECRET is set. Speaks the verifier's
// protocol (form POST of secret, response and remoteip; JSON {success, …} back) with undici, which is
// loaded only when a secret is set (~6 MB of heap an API without reCAPTCHA never needs).
import { Forbidden, Invalid, Unavailable } from '../errors/domain-error.ts';

export type CaptchaVerifier = (token: string | undefined, clientIp: string) => Promise<void>;

const VERIFY_TIMEOUT_MS = 5_000;

export function createCaptchaVerifier(settings: { secret: string | undefined; verifyUrl: string }): CaptchaVerifier {
  const { secret } = settings;
  if (!secret) return async () => {};
  const undici = import('undici');
  return async (token, clientIp) => {
    if (!token) throw new Invalid('recaptchaToken is required.', { fields: [{ field: 'recaptchaToken', code: 'required', message: 'is required' }] });
    const { request } = await undici;
    const response = await request(settings.verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret, response: token, remoteip: clientIp }).toString(),
      headersTimeout: VERIFY_TIMEOUT_MS,
      bodyTimeout: VERIFY_TIMEOUT_MS,
    }).catch((cause: unknown) => {
      throw new Unavailable('The captcha service cannot be reached; try again.', { cause });
    });
    const result = (await response.body.json().catch(() => ({}))) as { success?: boolean };
    if (response.statusCode !== 200 || result.success !== true) {
      throw new Forbidden('The captcha was not solved.', { code: 'captcha_failed' });
    }
  };
}
