// The answers many operations share, written once: the problem answers (4XX, 5XX, 429, default) as
// `components/responses`, one example problem per status as `components/examples`, and the headers
// of each answer as references. Operations refer to them instead of repeating them inline.
import type { AnyRouteSpec } from '../http/route.ts';
import { problemExample } from './problem-schema.ts';

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('XRateLimitLimit'),
  'X-RateLimit-Remaining': header('XRateLimitRemaining'),
  'X-RateLimit-Reset': header('XRateLimitReset'),
};
const limited = (route: AnyRouteSpec) => (route.rateLimit ?? 'default') !== 'none';

/** The headers of an answer with this status: the ones every answer has, and those the route's contract adds. */
export function headersOf(route: AnyRouteSpec, status: string): Record<string, object> {
  const headers: Record<string, object> = { 'X-Request-Id': header('XRequestId'), 'X-API-Version': header('XApiVersion') };
  if (limited(route)) Object.assign(headers, RATE_LIMIT_HEADERS);
  if (status === '429' || status === '503') headers['Retry-After'] = header('RetryAfter');
  if (status === '200' && 304 in route.responses) headers.ETag = header('ETag');
  if (status.startsWith('2') && (route.idempotent ?? route.method === 'post')) headers['Idempotent-Replayed'] = header('IdempotentReplayed');
  return headers;
}

// The shared answers of a rate-limited route, by the status key they answer under.
const SHARED = {
  '429': { name: 'TooManyRequests', description: 'Too many requests: wait Retry-After seconds', example: 429 },
  '4XX': { name: 'ClientProblem', description: 'A problem caused by the request', example: 400 },
  '5XX': { name: 'ServerProblem', description: 'A problem on our side', example: 500 },
  default: { name: 'OtherProblem', description: 'Any answer not listed above is a problem', example: 400 },
} as const;

/** Keeps the examples and responses the operations use, so the components hold no unused entry. */
export function createSharedResponses(publicUrl: string) {
  const examples = new Map<number, object>();
  const responses: Record<string, object> = {};
  const problemContent = (status: number) => {
    if (!examples.has(status)) examples.set(status, { summary: `A ${status} problem`, value: problemExample(status, '/v1/petitions', publicUrl) });
    return {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        examples: { problem: { $ref: `#/components/examples/Problem${status}` } },
      },
    };
  };
  /** One of the shared problem answers; inline for a route that is not rate limited (its answers carry no budget headers). */
  const shared = (route: AnyRouteSpec, key: keyof typeof SHARED): object => {
    const { name, description, example } = SHARED[key];
    const response = { description, headers: headersOf(route, key), content: problemContent(example) };
    if (!limited(route)) return response;
    responses[name] ??= response;
    return { $ref: `#/components/responses/${name}` };
  };
  const components = () => ({
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    examples: Object.fromEntries([...examples].sort(([a], [b]) => a - b).map(([status, example]) => [`Problem${status}`, example])),
  });
  return { problemContent, shared, components };
}
