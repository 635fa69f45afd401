// AWS Signature Version 4 for query-string ("pre-signed") URLs, as any S3-compatible store accepts
// them. Written out here rather than pulling in the AWS SDK: Rally needs only pre-signed PUT, GET,
// HEAD and DELETE of single objects, and this is the whole of that. test/api/s3-storage.test.ts
// checks it against AWS's published example and against a local S3-compatible server.
import { createHash, createHmac } from 'node:crypto';

export type SigV4Credentials = { accessKeyId: string; secretAccessKey: string; region: string; service?: string };

export type PresignRequest = {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  url: string;
  expiresInSeconds: number;
  /** Headers the request must carry unchanged (e.g. content-type); `host` is always signed. */
  headers?: Record<string, string>;
  now?: Date;
};

// RFC 3986 unreserved characters stay; everything else is percent-encoded, as SigV4 requires.
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** `20130524T000000Z` and `20130524` for a moment. */
function amzDates(now: Date): { amzDate: string; day: string } {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate, day: amzDate.slice(0, 8) };
}

/** The canonical request of a pre-signed URL: exported so tests can compare it with AWS's example. */
export function canonicalRequest(method: string, url: URL, query: [string, string][], headers: Record<string, string>): string {
  // S3 keys are encoded once per path segment, slashes kept (S3 does not double-encode).
  const path = url.pathname.split('/').map((segment) => encodeRfc3986(decodeURIComponent(segment))).join('/');
  const canonicalQuery = query
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  return [method, path || '/', canonicalQuery, canonicalHeaders, names.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
}

export function presignUrl(credentials: SigV4Credentials, request: PresignRequest): string {
  const url = new URL(request.url);
  const { amzDate, day } = amzDates(request.now ?? new Date());
  const service = credentials.service ?? 's3';
  const scope = `${day}/${credentials.region}/${service}/aws4_request`;
  const headers: Record<string, string> = { host: url.host };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const query: [string, string][] = [
    ...url.searchParams.entries(),
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(request.expiresInSeconds)],
    ['X-Amz-SignedHeaders', Object.keys(headers).sort().join(';')],
  ];
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest(request.method, url, query, headers))].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), credentials.region), service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  const search = [...query, ['X-Amz-Signature', signature]].map(([name, value]) => `${encodeRfc3986(name!)}=${encodeRfc3986(value!)}`).join('&');
  return `${url.origin}${url.pathname}?${search}`;
}
