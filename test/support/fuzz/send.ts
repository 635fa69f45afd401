// Sends a generated request over a plain socket-level HTTP client (node:http, which sends any
// header, method, body and percent-encoding as given) and judges the answer by the rules every
// answer must keep: no 5xx, no hang, and every 4xx an RFC 9457 problem.
import { request as httpRequest } from 'node:http';
import type { Operation } from './openapi.ts';
import type { FuzzRequest } from './requests.ts';

/** Longer than this without a complete answer counts as a hang. */
export const HANG_MS = 5_000;

export type Answer = { status: number; contentType: string; body: string } | { failure: string };

export function send(baseUrl: string, fuzz: FuzzRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...fuzz.headers };
    if (fuzz.body) headers['content-length'] = fuzz.body.length;
    const request = httpRequest({ host: url.hostname, port: url.port, method: fuzz.method, path: fuzz.path, headers, agent: false });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ failure: `no complete answer within ${HANG_MS} ms` });
    }, HANG_MS);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8').slice(0, 600),
        });
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        resolve({ failure: `answer cut off: ${error.message}` });
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      resolve({ failure: `connection failed: ${error.message}` });
    });
    request.end(fuzz.body);
  });
}

/**
 * What is wrong with an answer, or undefined when it keeps the rules. A 4xx that the operation
 * documents itself may take the form documented there (an OAuth error, an HTML page).
 */
export function verdict(answer: Answer, operation: Operation): string | undefined {
  if ('failure' in answer) return answer.failure;
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body}`;
  if (operation.ownErrors.has(answer.status)) {
    const documented = operation.ownErrors.get(answer.status) ?? [];
    if (documented.length && !documented.some((type) => answer.contentType.startsWith(type)))
      return `answered ${answer.status} as ${answer.contentType}; the document says ${documented.join(' or ')}`;
    return undefined;
  }
  if (answer.status >= 400 && !answer.contentType.startsWith('application/problem+json')) {
    return `answered ${answer.status} as ${answer.contentType || 'no content type'} instead of application/problem+json: ${answer.body.slice(0, 200)}`;
  }
  return undefined;
}

/** A short description of a request for a failure message (long values cut). */
export function describeRequest(fuzz: FuzzRequest): string {
  const path = fuzz.path.length > 300 ? `${fuzz.path.slice(0, 300)}… (${fuzz.path.length} characters)` : fuzz.path;
  const body = fuzz.body ? `${fuzz.body.length} bytes: ${JSON.stringify(fuzz.body.subarray(0, 200).toString('latin1'))}` : 'no body';
  return `${fuzz.method} ${path} [${fuzz.label}] (${body})`;
}
