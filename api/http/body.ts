// Request bodies are JSON or nothing. koa-body parses JSON up to the route's declared limit; this module adds the answers it leaves out, each a precise problem
// instead of a 500 or a reset: another media type or an unknown encoding 415, an undecodable body 400 invalid_encoding, JSON deeper than MAX_DEPTH 400, and a
// body over the limit 413. A body nothing read is read and thrown away before the answer (createUnreadBodyDrain).
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { RallyError } from './problem.ts';
import type { RallyState } from './context.ts';

const METHODS_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ACCEPTED_ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);
/** No request of the API nests deeper; deeper JSON only costs stack further down. */
export const MAX_DEPTH = 32;
// What is read and thrown away of a refused body before answering, so the client sees the 413
// rather than a connection reset while it is still sending.
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;
const DISCARD_MAX_MS = 5_000;

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('Content-Length');
  return (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
}

/** Depth of a parsed JSON value (a scalar is 0), walked without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const item of Object.values(current)) pending.push({ value: item, depth: depth + 1 });
  }
  return deepest;
}

// Requests whose rest was already read and thrown away (up to the bound): never twice.
const discarded = new WeakSet<IncomingMessage>();

function discardRest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed || discarded.has(req)) return Promise.resolve();
  discarded.add(req);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      req.off('data', count).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, DISCARD_MAX_MS);
    req.on('data', count).on('end', finish).on('error', finish).on('close', finish);
    req.resume();
  });
}

// A body over the limit gets its 413 once the excess is read (up to a bound), with Connection: close.
async function tooLarge(req: IncomingMessage, limitBytes: number, declared?: number): Promise<never> {
  await discardRest(req);
  const size = declared === undefined ? 'larger than that' : `${declared} bytes`;
  throw new RallyError('payload-too-large', `The request body is ${size}; this route accepts at most ${limitBytes} bytes.`, {
    headers: { Connection: 'close' },
  });
}

/** Parses a JSON body for a route taking at most `limitBytes`; leaves requests without one alone. */
export function createJsonBodyMiddleware(options: { limitBytes: number }): Middleware<RallyState> {
  const parseJson = koaBody({
    json: true,
    jsonStrict: true,
    jsonLimit: options.limitBytes,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  }) as unknown as Middleware<RallyState>;

  return async function readJsonBody(ctx, next) {
    if (!METHODS_WITH_BODIES.has(ctx.method) || !hasBody(ctx)) return next();
    if (!ctx.is('application/json', '+json')) {
      throw new RallyError(
        'unsupported-media-type',
        `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('Content-Type') || 'untyped'}.`,
      );
    }
    const encoding = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
    if (!ACCEPTED_ENCODINGS.has(encoding)) {
      throw new RallyError('unsupported-media-type', `Content-Encoding ${encoding} is not accepted; send identity, gzip, deflate or br.`, {
        code: 'unsupported_encoding',
      });
    }
    ctx.req.headers['content-encoding'] = encoding;
    const declared = Number(ctx.get('Content-Length'));
    if (encoding === 'identity' && Number.isFinite(declared) && declared > options.limitBytes) return tooLarge(ctx.req, options.limitBytes, declared);

    let parsed = false;
    try {
      await parseJson(ctx, async () => {
        parsed = true;
      });
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status === 413) return tooLarge(ctx.req, options.limitBytes);
      // The client went away before its body arrived (closed the connection, or it was already
      // consumed): nobody is left to read the answer, but it is the client's doing, never a 500.
      const type = (error as { type?: unknown }).type;
      if (type === 'stream.not.readable' || type === 'request.aborted') {
        throw new RallyError('bad-request', 'The request body could not be read: the connection was closed before it arrived.', { code: 'body_not_received' });
      }
      // A decoder fails with zlib's error, which carries no HTTP status.
      if (encoding !== 'identity' && typeof status !== 'number') {
        throw new RallyError('bad-request', `The request body could not be decoded as ${encoding}.`, { code: 'invalid_encoding' });
      }
      throw error;
    }
    if (!parsed) return;
    if (jsonDepth((ctx.request as { body?: unknown }).body) > MAX_DEPTH) {
      throw new RallyError('bad-request', `The JSON body nests deeper than ${MAX_DEPTH} levels.`, { code: 'nesting_too_deep' });
    }
    return next();
  };
}

/**
 * Reads and throws away (up to the same bound) a request body that nothing read: a GET's, or one
 * refused before its turn (401, 404, 429…). Answering first would close a `Connection: close`
 * socket with the body still unread, and the kernel then resets the connection, so the client
 * never sees the answer.
 */
export function createUnreadBodyDrain(): Middleware<RallyState> {
  return async function drainUnreadBody(ctx, next) {
    try {
      await next();
    } finally {
      await discardRest(ctx.req);
    }
  };
}
