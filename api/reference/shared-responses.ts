// The answers many operations share, written once: an answer given in the same form (headers and
// content) by two operations or more becomes a `components/responses` entry, which each operation
// refers to with its own description; one example problem per status is a `components/examples` entry.
import { STATUS_CODES } from 'node:http';
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

// The problem answers every route may give, by the status key they answer under, and their component names.
const SHARED = {
  '429': { name: 'TooManyRequests', description: 'Too many requests: wait Retry-After seconds', example: 429 },
  '4XX': { name: 'ClientProblem', description: 'A problem caused by the request', example: 400 },
  '5XX': { name: 'ServerProblem', description: 'A problem on our side', example: 500 },
  default: { name: 'OtherProblem', description: 'Any answer not listed above is a problem', example: 400 },
} as const;

/** Keeps the example problems the operations use, so the components hold no unused entry. */
export function createSharedResponses(publicUrl: string) {
  const examples = new Map<number, object>();
  const problemContent = (status: number) => {
    if (!examples.has(status)) examples.set(status, { summary: `A ${status} problem`, value: problemExample(status, '/v1/petitions', publicUrl) });
    return {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        examples: { problem: { $ref: `#/components/examples/Problem${status}` } },
      },
    };
  };
  /** One of the problem answers every route may give (shareResponses then writes it once). */
  const shared = (route: AnyRouteSpec, key: keyof typeof SHARED): object => {
    const { description, example } = SHARED[key];
    return { description, headers: headersOf(route, key), content: problemContent(example) };
  };
  const components = () => ({
    examples: Object.fromEntries([...examples].sort(([a], [b]) => a - b).map(([status, example]) => [`Problem${status}`, example])),
  });
  return { problemContent, shared, components };
}

type Response = { description: string; headers?: Record<string, object>; content?: Record<string, { schema?: { $ref?: string } }> };
type Operation = { responses: Record<string, Response | { $ref: string }> };

const pascal = (words: string) => words.replace(/(^|[\s_-])([a-z])/gi, (_match, _separator, letter: string) => letter.toUpperCase()).replace(/\W/g, '');
const isProblem = (response: Response) => Object.keys(response.content ?? {}).every((type) => type === 'application/problem+json');

/** A component's name and description: after the shared problem, the status or the schema it answers with, then how its headers differ. */
function named(status: string, response: Response, descriptions: string[]): { name: string; description: string } {
  const common = SHARED[status as keyof typeof SHARED];
  const reason = common?.description ?? STATUS_CODES[status] ?? status;
  const [type, content] = Object.entries(response.content ?? {})[0] ?? [];
  const schema = content?.schema?.$ref?.split('/').pop();
  let base: string;
  if (!type || isProblem(response)) base = common?.name ?? pascal(STATUS_CODES[status] ?? `Status ${status}`);
  else if (schema) base = `${schema.replace(/Envelope$/, '')}${Number(status) >= 400 ? pascal(reason) : ''}`;
  else base = `${pascal(type.split('/')[1]!)}${pascal(STATUS_CODES[status] ?? '')}`;
  const headers = Object.keys(response.headers ?? {});
  if (headers.includes('Idempotent-Replayed')) base += 'OrReplay';
  if (headers.includes('ETag')) base += 'WithETag';
  if (!headers.includes('X-RateLimit-Limit')) base += 'Unmetered';
  // The description most of its uses give, else the status's reason phrase.
  const counts = new Map<string, number>();
  for (const description of descriptions) counts.set(description, (counts.get(description) ?? 0) + 1);
  const [usual, times] = [...counts].sort(([, a], [, b]) => b - a)[0]!;
  return { name: base, description: type && !isProblem(response) && times > 1 ? usual : reason };
}

/**
 * Moves every answer two operations or more give in the same form into the returned components. A
 * use keeps its own description beside the reference (OpenAPI 3.1: it overrides the component's).
 */
export function shareResponses(operations: Operation[]): Record<string, object> {
  // The same headers and content; an answer without content is also told by its status (204, 302…).
  const keyOf = (status: string, response: Response) => JSON.stringify([response.headers, response.content ?? status]);
  const uses = new Map<string, { status: string; response: Response; descriptions: string[] }>();
  for (const operation of operations)
    for (const [status, response] of Object.entries(operation.responses)) {
      if ('$ref' in response) continue;
      const key = keyOf(status, response);
      const use = uses.get(key) ?? { status, response, descriptions: [] };
      use.descriptions.push(response.description);
      uses.set(key, use);
    }
  const components: Record<string, object> = {};
  const names = new Map<string, { name: string; description: string }>();
  for (const [key, { status, response, descriptions }] of uses) {
    if (descriptions.length < 2) continue;
    const component = named(status, response, descriptions);
    const base = component.name;
    for (let n = 2; component.name in components; n++) component.name = `${base}${n}`;
    components[component.name] = { ...response, description: component.description };
    names.set(key, component);
  }
  for (const operation of operations)
    for (const [status, response] of Object.entries(operation.responses)) {
      if ('$ref' in response) continue;
      const component = names.get(keyOf(status, response));
      if (!component) continue;
      const reference = { $ref: `#/components/responses/${component.name}` };
      operation.responses[status] = response.description === component.description ? reference : { ...reference, description: response.description };
    }
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}
