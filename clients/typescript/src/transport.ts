// The fetch every call of the client goes through: it gives each POST an Idempotency-Key (the caller's, or one made here) that stays the same across every
// attempt, asks the token provider for a token per attempt (once more, forcing a refresh, after a 401 token_expired), bounds each attempt by a timeout, honours
// the caller's AbortSignal, and retries as retry.ts decides.
import type { TokenProvider } from './auth.ts';
import { delayBeforeRetry, repeatable, retryableAnswer, type RetryPolicy } from './retry.ts';

export type TransportOptions = {
  inner: typeof fetch;
  policy: RetryPolicy;
  /** The longest one attempt may take. */
  timeoutMs: number;
  token?: TokenProvider;
};

/** A wait that ends early, rejecting with the signal's reason (as fetch does), when the caller aborts. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });

async function isExpiredToken(response: Response): Promise<boolean> {
  if (response.status !== 401) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown; error?: unknown } | undefined;
  return problem?.code === 'token_expired' || problem?.error === 'token_expired';
}

export function transport(options: TransportOptions): (request: Request) => Promise<Response> {
  const { inner, policy, timeoutMs, token } = options;
  return async (request) => {
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
    // The body is read once, so that each attempt can send it again.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const caller = request.signal;
    let refreshed = false;
    let refreshNow = false;
    for (let retry = 0; ;) {
      const headers = new Headers(request.headers);
      if (token) headers.set('Authorization', `Bearer ${await token({ refresh: refreshNow })}`);
      refreshNow = false;
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await inner(new Request(request, { body, headers, signal: AbortSignal.any([caller, timeout]) }));
      } catch (error) {
        if (caller.aborted) throw caller.reason;
        failure = timeout.aborted ? new DOMException(`No answer from Rally within ${timeoutMs} ms`, 'TimeoutError') : error;
      }
      if (response && token && !refreshed && (await isExpiredToken(response))) {
        // Not a retry: the same attempt again with a fresh token, once.
        refreshed = refreshNow = true;
        await response.body?.cancel();
        continue;
      }
      const again = response ? await retryableAnswer(request, response) : repeatable(request);
      const delay = again && retry < policy.maxRetries ? delayBeforeRetry(policy, retry, response) : undefined;
      if (delay === undefined) {
        if (response) return response;
        throw failure;
      }
      await response?.body?.cancel();
      await sleep(delay, caller);
      retry++;
    }
  };
}
