// The HTTP side of a webhook attempt, with undici. One Agent per worker process keeps connections to receivers alive between deliveries; its lookup refuses
// private addresses at connect time (core/webhooks/url-guard.ts). An attempt never throws for the receiver's behaviour: it reports what happened, and the
// activity decides what that means.
import { Agent, request, type Dispatcher } from 'undici';
import { AddressRefusedError, assertDeliverableHost, createGuardedLookup } from '../core/webhooks/url-guard.ts';

/** `allowLoopback`: outside production, a receiver on this machine is reachable (url-guard.ts). */
export function createWebhookAgent(options: { allowPrivate: boolean; allowLoopback: boolean }): Dispatcher {
  return new Agent({ connect: { lookup: createGuardedLookup(options.allowPrivate, options.allowLoopback) }, keepAliveTimeout: 30_000 });
}

export type AttemptReport = {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first bytes of the answer, for the owner to see what the receiver said. */
  excerpt: string | null;
  /** The address was refused: retrying cannot help. */
  refused: boolean;
};

const EXCERPT_BYTES = 512;
// Reading more than this is a receiver misbehaving; the connection is dropped instead.
const MAX_READ_BYTES = 64 * 1024;

export async function postWebhook(
  http: Dispatcher,
  target: { url: string; body: string; headers: Record<string, string>; timeoutMs: number; allowPrivate: boolean; allowLoopback?: boolean; allowedMs?: number },
): Promise<AttemptReport> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // A timer of our own, cleared once the answer is read: AbortSignal.timeout's would fire for every
  // attempt, long after it ended (about 5 % of the worker's busy time in the delivery pipeline's profile).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('the webhook attempt timed out', 'TimeoutError')), target.timeoutMs);
  try {
    const url = new URL(target.url);
    assertDeliverableHost(url, target.allowPrivate, target.allowLoopback);
    const response = await request(url, {
      dispatcher: http,
      method: 'POST',
      body: target.body,
      headers: { 'content-type': 'application/json', 'user-agent': 'Rally-Webhooks/1', ...target.headers },
      signal: deadline.signal,
    });
    const excerpt = await readExcerpt(response.body);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { statusCode: response.statusCode, latencyMs: elapsed(), error: ok ? null : `HTTP ${response.statusCode}`, excerpt, refused: false };
  } catch (error) {
    const refused = error instanceof AddressRefusedError || (error as { cause?: unknown }).cause instanceof AddressRefusedError;
    return { statusCode: null, latencyMs: elapsed(), error: describe(error, target.allowedMs ?? target.timeoutMs), excerpt: null, refused };
  } finally {
    clearTimeout(timer);
  }
}

async function readExcerpt(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > MAX_READ_BYTES) {
      body.destroy();
      break;
    }
    if (total - (chunk as Buffer).length < EXCERPT_BYTES) chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return text === '' ? null : text;
}

function describe(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { message?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.message && cause.message !== message ? `${message}: ${cause.message}` : message;
}
