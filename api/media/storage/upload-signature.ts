// Upload URLs that point at Rally itself carry their own proof: an expiry and an HMAC-SHA256 of the
// media id and that expiry, keyed with RALLY_MEDIA_SIGNING_KEY. Changing either breaks the signature;
// nothing about the URL is stored.
import { createHmac, timingSafeEqual } from 'node:crypto';

function sign(signingKey: string, mediaId: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`PUT ${mediaId} ${expires}`).digest('base64url');
}

export function signUpload(signingKey: string, mediaId: string, expiresAt: Date): { expires: number; signature: string } {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return { expires, signature: sign(signingKey, mediaId, expires) };
}

export type UploadSignatureCheck = 'valid' | 'invalid' | 'expired';

/** The signature is checked before the expiry, so a forged URL never learns whether it is expired. */
export function checkUploadSignature(signingKey: string, mediaId: string, expires: number, signature: string, now = Date.now()): UploadSignatureCheck {
  const expected = Buffer.from(sign(signingKey, mediaId, expires));
  const presented = Buffer.from(signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return 'invalid';
  return expires * 1000 <= now ? 'expired' : 'valid';
}
