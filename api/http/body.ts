// Request bodies are JSON or nothing. koa-body parses JSON up to the route's limit; this module adds
// the answers it leaves out: a body in another media type is a 415, not silently ignored.
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { RallyError } from './problem.ts';
import type { RallyContext, RallyState } from './context.ts';

const METHODS_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('Content-Length');
  return (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
}

/** `rawBody(ctx)` names requests whose route reads the body stream itself (uploads): left untouched. */
export function createJsonBodyMiddleware(options: { limitBytes: number; rawBody?: (ctx: RallyContext) => boolean }): Middleware<RallyState> {
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
    if (!METHODS_WITH_BODIES.has(ctx.method) || !hasBody(ctx) || options.rawBody?.(ctx)) return next();
    if (!ctx.is('application/json', '+json')) {
      throw new RallyError('unsupported-media-type', `Request bodies must be JSON (Content-Type: application/json), not ${ctx.get('Content-Type') || 'untyped'}.`);
    }
    const declared = Number(ctx.get('Content-Length'));
    if (Number.isFinite(declared) && declared > options.limitBytes) {
      throw new RallyError('payload-too-large', `The request body is ${declared} bytes; this route accepts at most ${options.limitBytes}.`);
    }
    return parseJson(ctx, next);
  };
}
