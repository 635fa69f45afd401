// `rally webhooks listen --forward-to URL`: webhooks on a laptop, like `stripe listen`. Registers a
// temporary endpoint on a Rally that can reach this machine, forwards each delivery (same bytes, same
// signed headers) to the local receiver, prints each with the receiver's answer, and deletes the endpoint on Ctrl-C.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { DEFAULT_EVENT_TYPES } from '../../core/vocabulary.ts';
import { CommandError } from './command-error.ts';

export const LISTEN_USAGE = 'rally webhooks listen --forward-to URL [--events a,b] [--url RALLY_URL] [--token TOKEN] [--port N] [--endpoint-url URL]';

// What the receiver sees of Rally's request: the body is signed, these headers carry the signatures.
const FORWARDED_HEADERS = [
  'content-type',
  'user-agent',
  'x-rally-signature',
  'x-rally-signature-v2',
  'x-rally-signature-previous',
  'x-rally-event',
  'x-rally-delivery-id',
  'x-rally-timestamp',
];
// Rally gives up on an attempt after RALLY_WEBHOOK_TIMEOUT (10 s by default); the receiver gets a little less.
const FORWARD_TIMEOUT_MS = 9_000;
const EXCERPT = 200;

type Options = { forwardTo: URL; events: string[]; rallyUrl: string; token: string; port: number; endpointUrl?: string };

function options(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      port: { type: 'string' },
      'endpoint-url': { type: 'string' },
    },
  });
  const token = values.token ?? process.env.RALLY_TOKEN;
  if (!values['forward-to'] || !token)
    throw new CommandError(`usage: ${LISTEN_USAGE}\n(the token may also be given as RALLY_TOKEN: an API key, or a login's access token)`);
  let forwardTo: URL;
  try {
    forwardTo = new URL(values['forward-to']);
  } catch {
    throw new CommandError(`--forward-to must be a URL, such as http://localhost:8080/hooks; got ${values['forward-to']}`);
  }
  const events = values.events ? values.events.split(',').map((name) => name.trim()) : [...DEFAULT_EVENT_TYPES];
  const port = Number(values.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CommandError(`--port must be a port number; got ${values.port}`);
  const rallyUrl = (values.url ?? process.env.RALLY_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/$/, '');
  return { forwardTo, events, rallyUrl, token, port, endpointUrl: values['endpoint-url'] };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends one delivery on to the receiver and answers Rally with what the receiver answered (502 if it could not be reached). */
async function forward(target: URL, request: IncomingMessage, response: ServerResponse, print: (line: object) => void): Promise<void> {
  const body = await readBody(request);
  const headers = Object.fromEntries(FORWARDED_HEADERS.flatMap((name) => (typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [])));
  const seen = { event: request.headers['x-rally-event'] ?? null, delivery_id: request.headers['x-rally-delivery-id'] ?? null, at: new Date().toISOString() };
  try {
    const answer = await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    const text = await answer.text();
    print({ ...seen, status: answer.status, answer: text.slice(0, EXCERPT) });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(text);
  } catch (error) {
    const message = `could not forward to ${target.href}: ${(error as Error).message}`;
    print({ ...seen, status: null, error: message });
    response.writeHead(502, { 'content-type': 'text/plain' }).end(message);
  }
}

async function rally(
  options: Options,
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; data: Record<string, unknown> | null; text: string }> {
  let answer: Response;
  try {
    answer = await fetch(`${options.rallyUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw new CommandError(`could not reach Rally at ${options.rallyUrl} (is it running? --url): ${(error as Error).message}`);
  }
  const text = await answer.text();
  const parsed = text ? (JSON.parse(text) as { data?: Record<string, unknown> }) : {};
  return { status: answer.status, data: parsed.data ?? null, text };
}

/** Runs until SIGINT or SIGTERM; prints one JSON line per event on stdout. */
export async function listenForWebhooks(args: string[], print: (line: object) => void): Promise<void> {
  const settings = options(args);
  const server = createServer((request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    void forward(settings.forwardTo, request, response, print);
  });
  await new Promise<void>((resolve) => server.listen(settings.port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpointUrl = settings.endpointUrl ?? `http://127.0.0.1:${port}/`;
  const created = await rally(settings, 'POST', '/v1/webhooks', { url: endpointUrl, events: settings.events });
  if (created.status !== 201 || !created.data) {
    server.close();
    throw new CommandError(`Rally refused the endpoint (${created.status}): ${created.text}`);
  }
  const id = String(created.data.id);
  // The secret, as `stripe listen` shows its own: the receiver verifies the forwarded signatures with it.
  print({ listening: endpointUrl, forward_to: settings.forwardTo.href, webhook_id: id, secret: created.data.secret, events: settings.events });

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    // A terminal's Ctrl-C reaches the launcher and this process both: a repeat must not cut the clean-up short.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const removed = await rally(settings, 'DELETE', `/v1/webhooks/${id}`);
  server.closeAllConnections();
  server.close();
  if (removed.status !== 204 && removed.status !== 404) {
    throw new CommandError(`could not delete endpoint ${id} (${removed.status}): delete it with DELETE /v1/webhooks/${id}`);
  }
  print({ removed: id });
}
