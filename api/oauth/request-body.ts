// The OAuth endpoints read their bodies themselves (their routes are rawBody): RFC 6749 clients
// send application/x-www-form-urlencoded, Rally's spec also allows JSON. Either becomes a flat map
// of strings; a repeated parameter (RFC 6749 3.2) or another media type is refused.
import type { RallyContext } from '../http/context.ts';

const LIMIT_BYTES = 16 * 1024;

export class BodyError extends Error {
  override name = 'BodyError';
}

async function readText(ctx: RallyContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT_BYTES) throw new BodyError(`The request body is larger than ${LIMIT_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readParameters(ctx: RallyContext): Promise<Record<string, string>> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > LIMIT_BYTES) throw new BodyError(`The request body is larger than ${LIMIT_BYTES} bytes.`);
  const text = await readText(ctx);
  const parameters: Record<string, string> = {};
  if (text === '') return parameters;
  if (ctx.is('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(text)) {
      if (name in parameters) throw new BodyError(`The parameter "${name}" is repeated.`);
      parameters[name] = value;
    }
    return parameters;
  }
  if (ctx.is('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BodyError('The request body is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BodyError('The JSON body must be an object.');
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw new BodyError(`The parameter "${name}" must be a string.`);
      parameters[name] = value;
    }
    return parameters;
  }
  throw new BodyError('Send application/x-www-form-urlencoded or application/json.');
}
