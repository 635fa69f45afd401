// Verifying a webhook delivery before trusting it. Rally signs the exact body bytes with the
// endpoint's secret: X-Rally-Signature is `sha256=<hex HMAC-SHA256 of the body>`, and
// X-Rally-Signature-V2 is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` (one v1 per secret
// during a rotation), which also lets a receiver refuse an old delivery replayed to it. Web Crypto
// only, so it runs in Node.js, Deno, Bun, browsers and edge runtimes alike.
import type { components } from './generated/openapi.ts';

type Schemas = components['schemas'];
/** Every webhook payload, discriminated by `type` (the `webhooks` section of openapi.json). */
export type WebhookEvent = { [Name in keyof Schemas]: Name extends `${string}Event` ? Schemas[Name] : never }[keyof Schemas];
export type WebhookEventType = WebhookEvent['type'];

export type VerifyInput = {
  /** The endpoint's signing secret (shown once when the endpoint was created or its secret rotated). */
  secret: string;
  /** The raw body, exactly as received: parse it only after verifying. */
  body: string | Uint8Array;
  /** The request headers (a Headers object, or a plain record as Node's IncomingMessage has). */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** How old a V2 signature may be; default 300 s. */
  toleranceSeconds?: number;
  now?: Date;
};

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const encoder = new TextEncoder();

function headerOf(headers: VerifyInput['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name.toLowerCase()] ?? headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function hmacHex(secret: string, data: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>));
  return Array.from(signature, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Equal strings, compared in time that does not depend on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < Math.max(a.length, b.length); index++) difference |= (a.charCodeAt(index) || 0) ^ (b.charCodeAt(index) || 0);
  return difference === 0;
}

const concat = (prefix: string, body: Uint8Array) => {
  const head = encoder.encode(prefix);
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
};

/**
 * Whether the delivery was signed with `secret`: by X-Rally-Signature-V2 when present (and then not
 * older than the tolerance), else by X-Rally-Signature.
 */
export async function verifyWebhookSignature(input: VerifyInput): Promise<boolean> {
  const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const v2 = headerOf(input.headers, 'X-Rally-Signature-V2');
  if (v2) {
    const parts = v2.split(',').map((part) => part.split('=') as [string, string]);
    const time = Number(parts.find(([name]) => name === 't')?.[1]);
    const now = (input.now ?? new Date()).getTime() / 1000;
    if (!Number.isFinite(time) || Math.abs(now - time) > (input.toleranceSeconds ?? 300)) return false;
    const expected = await hmacHex(input.secret, concat(`${time}.`, body));
    return parts.filter(([name]) => name === 'v1').some(([, value]) => constantTimeEqual(value ?? '', expected));
  }
  const v1 = headerOf(input.headers, 'X-Rally-Signature');
  if (!v1) return false;
  return constantTimeEqual(v1, `sha256=${await hmacHex(input.secret, body)}`);
}

/** The verified, parsed event; throws WebhookVerificationError when the signature does not hold. */
export async function constructWebhookEvent(input: VerifyInput): Promise<WebhookEvent> {
  if (!(await verifyWebhookSignature(input))) throw new WebhookVerificationError('The webhook signature does not match this secret (or is too old).');
  const text = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  return JSON.parse(text) as WebhookEvent;
}
