// Retries on 429 (rate limited) and 503 (a dependency is unavailable) after the Retry-After the API
// sends, and an Idempotency-Key on every POST that has none, made once per call, so a retried POST is
// the same request to the API: it is done once, and its retry gets the first answer back.

export type RetryOptions = {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the 429 or 503 is returned. Default 60 s. */
  maxDelayMs?: number;
  /** Wait used when an answer has no usable Retry-After. Default 1 s. */
  fallbackDelayMs?: number;
};

const RETRIED = new Set([429, 503]);

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** A fetch that adds the Idempotency-Key and retries as above; `inner` does the requests. */
export function retryingFetch(inner: typeof fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const fallbackDelayMs = options.fallbackDelayMs ?? 1_000;
  return async (request) => {
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
    // The body is read once, so that each attempt can send it again.
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 0; ; attempt++) {
      const response = await inner(new Request(request, { body }));
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response;
      const delay = retryAfterMs(response.headers.get('Retry-After')) ?? fallbackDelayMs;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
