// Reads an HTML form's body (application/x-www-form-urlencoded) for the browser pages of Rally and
// of its identity provider: bounded in size, each field read once. A body over the limit, of another
// type or with a field given twice is refused with a FormBodyError the page turns into a 4xx page.
import type { IncomingMessage } from 'node:http';

export class FormBodyError extends Error {
  override name = 'FormBodyError';
  readonly status: 400 | 413 | 415;
  constructor(status: 400 | 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

/** Forms of Rally's pages are small: a comment of 500 characters percent-encoded fits many times. */
export const FORM_BODY_LIMIT = 16 * 1024;

export async function readFormBody(req: IncomingMessage, limitBytes = FORM_BODY_LIMIT): Promise<Record<string, string>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new FormBodyError(415, 'This form takes application/x-www-form-urlencoded.');
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') throw new FormBodyError(415, 'Form bodies are not accepted compressed.');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new FormBodyError(413, 'The form is larger than this page accepts.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new FormBodyError(413, 'The form is larger than this page accepts.');
    chunks.push(chunk);
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (Object.hasOwn(fields, name)) throw new FormBodyError(400, `The form field "${name.slice(0, 40)}" was sent twice.`);
    fields[name] = value;
  }
  return fields;
}
