// A local S3-compatible receiver for the S3 storage tests that checks every request's SigV4 signature with AWS's own signer (@smithy/signature-v4),
// header-signed and pre-signed alike, plus pre-signed URLs' expiry and signed bodies' payload hash (s3rver, used before, did not check signatures). Objects
// live in memory; unsigned GETs are public reads, as from a bucket whose variants are published. Path-style only: `/{bucket}/{key}`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { S3Settings } from '../../platform/config.ts';

export const S3_BUCKET = 'rally-media';
const ACCESS_KEY_ID = 'RALLYTESTKEY';
const SECRET_ACCESS_KEY = 'rally-test-secret-access-key';
const REGION = 'us-east-1';

// The signer's hash: SHA-256, or HMAC-SHA-256 when given a key.
class Sha256 {
  private hash;
  private readonly secret;
  constructor(secret?: string | Uint8Array | ArrayBuffer | ArrayBufferView) {
    this.secret = secret;
    this.hash = this.fresh();
  }
  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', Buffer.from(this.secret as Uint8Array));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const signer = new SignatureV4({
  service: 's3',
  region: REGION,
  credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  sha256: Sha256,
  uriEscapePath: false,
});

export type CheckedRequest = { method: string; key: string; auth: 'header' | 'query' | 'anonymous'; verified: boolean; reason?: string };

function amzDate(raw: string): Date {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(raw);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : new Date(NaN);
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

type Received = { method: string; url: URL; headers: IncomingMessage['headers']; body: Buffer };

/** Re-signs the request as received with AWS's signer; undefined when the signature holds, else why not. */
async function checkSignature(request: Received): Promise<{ auth: CheckedRequest['auth']; failure?: string }> {
  const { url, headers } = request;
  const authorization = headers.authorization;
  const query = Object.fromEntries(url.searchParams);
  const presigned = query['X-Amz-Signature'];
  if (!authorization && !presigned) return { auth: 'anonymous', failure: request.method === 'GET' ? undefined : 'no signature' };
  const auth = authorization ? 'header' : 'query';
  const signedNames = (authorization ? /SignedHeaders=([^,]+)/.exec(authorization)?.[1] : query['X-Amz-SignedHeaders'])?.split(';') ?? [];
  const credential = authorization ? /Credential=([^,]+)/.exec(authorization)?.[1] : query['X-Amz-Credential'];
  if (credential?.split('/')[0] !== ACCESS_KEY_ID) return { auth, failure: 'InvalidAccessKeyId' };
  const signedHeaders = Object.fromEntries(signedNames.map((name) => [name, String(headers[name] ?? '')]));
  const base = { method: request.method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname };
  if (authorization) {
    const date = amzDate(String(headers['x-amz-date']));
    const payloadHash = String(headers['x-amz-content-sha256'] ?? '');
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== createHash('sha256').update(request.body).digest('hex'))
      return { auth, failure: 'XAmzContentSHA256Mismatch' };
    const resigned = await signer.sign({ ...base, query, headers: signedHeaders }, { signingDate: date, signableHeaders: new Set(signedNames) });
    const expected = /Signature=([0-9a-f]+)/.exec(String(resigned.headers.authorization))?.[1] ?? '';
    const claimed = /Signature=([0-9a-f]+)/.exec(authorization)?.[1] ?? '';
    return sameHex(expected, claimed) ? { auth } : { auth, failure: 'SignatureDoesNotMatch' };
  }
  const date = amzDate(query['X-Amz-Date'] ?? '');
  const expiresIn = Number(query['X-Amz-Expires']);
  if (!(date.getTime() + expiresIn * 1000 >= Date.now())) return { auth, failure: 'AccessDenied: Request has expired' };
  // The payload hash travels in the query (hoisted from a header, under the name the signer gave it);
  // handed back as that header, the signer hoists it again and hashes with it.
  const { 'X-Amz-Signature': _signature, ...rest } = query;
  const payload: Record<string, string> = {};
  for (const name of Object.keys(rest).filter((name) => name.toLowerCase() === 'x-amz-content-sha256')) {
    payload[name] = rest[name]!;
    delete rest[name];
  }
  const resigned = await signer.presign(
    { ...base, query: rest, headers: { ...signedHeaders, ...payload } },
    { signingDate: date, expiresIn, signableHeaders: new Set(signedNames) },
  );
  return sameHex(String(resigned.query?.['X-Amz-Signature']), presigned!) ? { auth } : { auth, failure: 'SignatureDoesNotMatch' };
}

function reply(response: ServerResponse, status: number, code?: string): void {
  response.writeHead(status, code ? { 'content-type': 'application/xml' } : {});
  response.end(code ? `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>` : undefined);
}

export async function startS3Server() {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const checked: CheckedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url!, `http://${req.headers.host}`);
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const received = { method: req.method!, url, headers: req.headers, body: Buffer.concat(chunks) };
    const { auth, failure } = await checkSignature(received);
    checked.push({ method: received.method, key, auth, verified: auth !== 'anonymous' && !failure, ...(failure ? { reason: failure } : {}) });
    if (failure) return reply(res, 403, failure.split(':')[0]);
    if (bucket !== S3_BUCKET) return reply(res, 404, 'NoSuchBucket');
    const stored = objects.get(key);
    if (req.method === 'PUT') {
      objects.set(key, { body: received.body, contentType: String(req.headers['content-type'] ?? 'application/octet-stream') });
      return reply(res, 200);
    }
    if (req.method === 'DELETE') {
      objects.delete(key);
      return reply(res, 204);
    }
    if (!stored) return req.method === 'HEAD' ? reply(res, 404) : reply(res, 404, 'NoSuchKey');
    res.writeHead(200, { 'content-type': stored.contentType, 'content-length': stored.body.length });
    res.end(req.method === 'HEAD' ? undefined : stored.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = {
    endpoint,
    bucket: S3_BUCKET,
    region: REGION,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    publicUrl: `${endpoint}/${S3_BUCKET}`,
  };
  return {
    settings,
    /** Every request seen, with how it was signed and whether the signature held. */
    checked,
    /** The same settings as the service reads them from its environment. */
    env: { S3_ENDPOINT: endpoint, S3_BUCKET, S3_ACCESS_KEY_ID: ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
