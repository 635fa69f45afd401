// Verifying a webhook delivery before trusting it. X-Rally-Signature-V2 is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, with one v1 per secret that
// signs during a rotation; covering the time lets a receiver refuse an old delivery replayed to it. Web Crypto's verify compares in constant time, and runs in
// Node.js, Deno, Bun, browsers and edge runtimes alike.
import type { webhooks } from './generated/openapi.ts';

type Payload<Name extends keyof webhooks> = webhooks[Name] extends { post: { requestBody: { content: { 'application/json': infer Body } } } } ? Body : never;
/** Every event of the `webhooks` section of openapi.json, discriminated by `type`. */
export type WebhookEvent = { [Name in keyof webhooks]: Payload<Name> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type ConstructEventOptions = {
  /** How old (or how far in the future) a signature's time may be; default 300 s. */
  toleranceSeconds?: number;
  now?: Date;
};

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const encoder = new TextEncoder();

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The bytes of a hex string, or undefined when it is not one. */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

async function signedWith(secret: string, signed: Uint8Array<ArrayBuffer>, signatures: Uint8Array<ArrayBuffer>[]): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  for (const signature of signatures) if (await crypto.subtle.verify('HMAC', key, signature, signed)) return true;
  return false;
}

/**
 * Checks X-Rally-Signature-V2 against the raw body: its time within the tolerance, and one of its
 * `v1=` signatures made with one of `secrets` (give both during a rotation). Throws
 * WebhookVerificationError otherwise.
 */
export async function verifySignature(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: ConstructEventOptions = {},
): Promise<void> {
  const header = headerOf(headers, 'X-Rally-Signature-V2');
  if (!header) throw new WebhookVerificationError('The delivery has no X-Rally-Signature-V2 header.');
  const parts = header.split(',').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
  });
  const time = parts.find(([name]) => name === 't')?.[1];
  if (!time || !/^\d+$/.test(time)) throw new WebhookVerificationError('X-Rally-Signature-V2 has no time (t=).');
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - Number(time)) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('The signature is older than the tolerance: a replay, or a clock far off.');
  const signatures = parts.filter(([name]) => name === 'v1').flatMap(([, value]) => hexBytes(value) ?? []);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${time}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) if (await signedWith(secret, signed, signatures)) return;
  throw new WebhookVerificationError('No v1 signature matches these secrets.');
}

/** The verified event, typed: `switch (event.type)` narrows `event.data`. Parse only what this returns. */
export async function constructEvent(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options?: ConstructEventOptions,
): Promise<WebhookEvent> {
  await verifySignature(rawBody, headers, secrets, options);
  const event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as unknown;
  if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string')
    throw new WebhookVerificationError('The body is not a Rally event.');
  return event as WebhookEvent;
}
