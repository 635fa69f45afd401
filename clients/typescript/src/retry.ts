// When a failed attempt is tried again, and after how long. An attempt that may have been done by the API (a network error, a timeout, 500, 502, 504, 408) is
// retried only when repeating it is safe: a read, or a POST that carries an Idempotency-Key the route honours, so the API answers the repeat with the first
// answer. Refusals the API made before doing anything (429, 503, and 409 while the same key is still being processed) are retried for every method.

export type RetryOptions = {
  /** Retries after the first attempt; 0 turns retrying off. Default 2. */
  maxRetries?: number;
  /** The first backoff; each retry doubles it, with jitter. Default 500 ms. */
  initialDelayMs?: number;
  /** The longest wait: a longer backoff is cut to it, a longer Retry-After is not waited for (the answer is returned). Default 30 s. */
  maxDelayMs?: number;
};

/** Answers that mean the API did not do the request: it is repeated as it is. */
const REFUSED = new Set([429, 503]);
/** Answers after which the API may or may not have done the request. */
const UNCERTAIN = new Set([408, 500, 502, 504]);
const KEY_IN_USE = /\/idempotency-key-in-use$/;

/**
 * POSTs whose routes take no Idempotency-Key (logins and token exchanges; a test checks this list
 * against openapi.json). Repeating one of them after an uncertain failure could, for example, present
 * a refresh token that the lost first attempt already rotated, which revokes the whole session.
 */
const UNKEYED_POSTS = /^\/(v1\/auth\/|oauth\/)/;

/** Whether the API's answer to a repeat of `request` would be the answer to the first attempt. */
export function repeatable(request: Request): boolean {
  if (['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(request.method)) return true;
  if (request.method !== 'POST' || !request.headers.has('Idempotency-Key')) return false;
  return !UNKEYED_POSTS.test(new URL(request.url).pathname);
}

/** Whether an answer is worth another attempt (reads the body of a 409 only, from a clone). */
export async function retryableAnswer(request: Request, response: Response): Promise<boolean> {
  if (REFUSED.has(response.status)) return true;
  if (UNCERTAIN.has(response.status)) return repeatable(request);
  if (response.status !== 409) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { type?: unknown } | undefined;
  return typeof problem?.type === 'string' && KEY_IN_USE.test(problem.type);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return { maxRetries: options.maxRetries ?? 2, initialDelayMs: options.initialDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 30_000 };
}

/**
 * The wait before retry number `retry` (0 for the first): the answer's Retry-After when it has one,
 * else exponential backoff with "equal jitter" (half fixed, half random), so that many clients failed
 * by one outage do not come back in step. Undefined when Retry-After asks for more than maxDelayMs.
 */
export function delayBeforeRetry(policy: RetryPolicy, retry: number, response?: Response): number | undefined {
  const asked = retryAfterMs(response?.headers.get('Retry-After') ?? null);
  if (asked !== undefined) return asked > policy.maxDelayMs ? undefined : asked;
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return backoff / 2 + Math.random() * (backoff / 2);
}
