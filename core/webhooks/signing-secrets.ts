// Webhook signing secrets: made here, shown once, stored sealed with AES-256-GCM under
// RALLY_ENCRYPTION_KEY (a hash would not do: the worker needs the secret itself to compute each HMAC),
// and used to sign exactly the bytes that are sent, the way GitHub's X-Hub-Signature-256 is made.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `whsec_` and 32 random bytes, base64url: the HMAC key is this whole string, as GitHub uses its secret. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export type SecretBox = { seal(plain: string): Buffer; open(sealed: Buffer): string };

/** `keyHex` is Config.encryptionKey. A sealed value is iv || tag || ciphertext; tampering fails open(). */
export function createSecretBox(keyHex: string): SecretBox {
  const bytes = Buffer.from(keyHex, 'hex');
  if (bytes.length !== 32) throw new Error('the encryption key must be 32 bytes');
  // A KeyObject made once: given raw bytes, every cipher would first check and wrap them again,
  // which profiled as most of the cost of opening a secret (one per webhook attempt).
  const key = createSecretKey(bytes);
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed) {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** `sha256=` + hex HMAC-SHA256 of the exact body bytes: the X-Rally-Signature value. */
export function signPayload(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The X-Rally-Signature-V2 value, Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`,
 * one v1 per secret still signing. Covering the time lets receivers refuse replays of old deliveries
 * (we document a tolerance of 5 minutes).
 */
export function signPayloadV2(secrets: readonly string[], body: string, unixSeconds: number): string {
  const signed = `${unixSeconds}.${body}`;
  return [`t=${unixSeconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}

/**
 * A box that opens each sealed secret once and remembers it for as long as the box is kept: a batch
 * of deliveries to one endpoint opens that endpoint's secret once instead of once per delivery. Kept
 * for one batch only, so plaintext secrets do not outlive the work that needs them.
 */
export function openingOnce(box: SecretBox): SecretBox {
  const opened = new Map<string, string>();
  return {
    seal: (plain) => box.seal(plain),
    open(sealed) {
      const key = sealed.toString('base64');
      let plain = opened.get(key);
      if (plain === undefined) opened.set(key, (plain = box.open(sealed)));
      return plain;
    },
  };
}
