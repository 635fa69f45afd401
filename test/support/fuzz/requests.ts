// One generated request to one operation: path values (real ids of the fixture, random uuids or
// garbage), query values (declared ones hostile, repeated or missing, unknown ones added), a body
// from bodies.ts, and a credential (none, a real user's token, a real API key, or garbage).
import fc from 'fast-check';
import { wireBodies } from './bodies.ts';
import type { Operation, Parameter } from './openapi.ts';
import { forgedCursors, hostileText, INVALID_UTF8, plausible } from './values.ts';

export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body?: Buffer; label: string };

export type Credentials = {
  /** A real user's access token from the identity provider. */
  accessToken: string;
  /** A real API key of the same user. */
  apiKey: string;
};

/** Real values for path parameters, by name, so some requests reach past "not found". */
export type KnownValues = Record<string, string[]>;

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const PRINTABLE = /^[\x21-\x7e]$/;

/**
 * Percent-encodes text for a URL. `strict` keeps only unreserved characters; otherwise every
 * printable ASCII character goes through as it is (`%`, `/`, `?`, `#` included), which is garbage
 * a client can send. INVALID_UTF8 becomes bytes that do not decode.
 */
export function urlText(text: string, strict: boolean): string {
  const keep = strict ? UNRESERVED : PRINTABLE;
  return text
    .split(INVALID_UTF8)
    .map((part) =>
      Array.from(Buffer.from(part, 'utf8'), (byte) => {
        const character = String.fromCharCode(byte);
        return keep.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }).join(''),
    )
    .join('%FF%FE%C3%28');
}

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

function pathValue(parameter: Parameter, known: KnownValues): fc.Arbitrary<{ text: string; strict: boolean }> {
  const real = known[parameter.name] ?? [];
  return fc.oneof(
    { weight: 3, arbitrary: (real.length ? fc.constantFrom(...real) : fc.uuid()).map((text) => ({ text, strict: true })) },
    { weight: 1, arbitrary: fc.uuid().map((text) => ({ text, strict: true })) },
    { weight: 3, arbitrary: fc.tuple(hostileText(parameter.schema), fc.boolean()).map(([text, strict]) => ({ text, strict })) },
  );
}

function queryPairs(parameters: Parameter[]): fc.Arbitrary<[string, string][]> {
  const declared = parameters.map((parameter) => {
    const choices: fc.WeightedArbitrary<[string, string][]>[] = [
      { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 2, arbitrary: plausible(parameter.schema).map((value): [string, string][] => [[parameter.name, asText(value)]]) },
      { weight: 2, arbitrary: hostileText(parameter.schema).map((value): [string, string][] => [[parameter.name, value]]) },
      {
        weight: 1,
        arbitrary: fc
          .array(hostileText(parameter.schema), { minLength: 2, maxLength: 3 })
          .map((values) => values.map((value): [string, string] => [parameter.name, value])),
      },
    ];
    if (parameter.name === 'cursor') choices.push({ weight: 3, arbitrary: forgedCursors.map((value): [string, string][] => [[parameter.name, value]]) });
    return fc.oneof(...choices);
  });
  const unknown = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'sort', 'page', '__proto__', 'constructor', ''), fc.string({ maxLength: 12 })), hostileText({})),
    { maxLength: 2 },
  );
  return fc
    .tuple(fc.tuple(...declared), fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: unknown }))
    .map(([known, extra]) => [...known.flat(), ...extra]);
}

const rawQueries = fc.constantFrom('?', '?&&&==', '?%', '?a=%ZZ', '?limit', '?limit=1&limit=2', '?cursor=%FF%FE', '?=', '?a[b]=1', `?q=${'x'.repeat(20_000)}`);

function credentialHeaders(credentials: Credentials): fc.Arbitrary<{ headers: Record<string, string>; label: string }> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ headers: {}, label: 'no credential' }) },
    { weight: 4, arbitrary: fc.constant({ headers: { authorization: `Bearer ${credentials.accessToken}` }, label: 'user token' }) },
    { weight: 2, arbitrary: fc.constant({ headers: { authorization: `Bearer ${credentials.apiKey}` }, label: 'API key' }) },
    { weight: 1, arbitrary: fc.constant({ headers: { 'x-api-key': credentials.apiKey }, label: 'API key in X-API-Key' }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          'Bearer',
          'Bearer ',
          'Basic Zm9vOmJhcg==',
          `Bearer ${'x'.repeat(8_000)}`,
          'Bearer rally_live_0000',
          'Bearer a.b.c',
          'Bearer \u00ff\u00fe',
          `Bearer ${credentials.accessToken}x`,
          'bearer  two  spaces',
        )
        .map((value) => ({ headers: { authorization: value }, label: `authorization ${JSON.stringify(value.slice(0, 40))}` })),
    },
  );
}

const idempotencyKeys = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom('', 'x'.repeat(300), '%00', 'clé é', ' spaced ')) },
);

const otherMethods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND');

export function fuzzRequests(operation: Operation, credentials: Credentials, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.tuple(...operation.pathParameters.map((parameter) => pathValue(parameter, known)));
  const query = fc.oneof(
    {
      weight: 8,
      arbitrary: queryPairs(operation.queryParameters).map((pairs) =>
        pairs.length ? `?${pairs.map(([key, value]) => `${urlText(key, true)}=${urlText(value, true)}`).join('&')}` : '',
      ),
    },
    { weight: 1, arbitrary: rawQueries },
  );
  const method = fc.oneof({ weight: 12, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: otherMethods });
  return fc
    .record({
      values: pathValues,
      query,
      method,
      body: wireBodies(operation.body),
      credential: operation.takesCredential
        ? credentialHeaders(credentials)
        : fc.oneof({ weight: 4, arbitrary: fc.constant({ headers: {}, label: 'no credential' }) }, { weight: 1, arbitrary: credentialHeaders(credentials) }),
      idempotencyKey: idempotencyKeys,
    })
    .map(({ values, query, method, body, credential, idempotencyKey }) => {
      let index = 0;
      const path = operation.path.replace(/\{[^}]+\}/g, () => {
        const value = values[index++]!;
        return urlText(value.text, value.strict);
      });
      const headers: Record<string, string> = { ...credential.headers };
      if (body?.contentType) headers['content-type'] = body.contentType;
      if (body?.contentEncoding) headers['content-encoding'] = body.contentEncoding;
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      const label = [
        credential.label,
        body?.label ?? 'no body',
        idempotencyKey === undefined ? '' : `Idempotency-Key ${JSON.stringify(idempotencyKey.slice(0, 20))}`,
      ]
        .filter(Boolean)
        .join('; ');
      return { method, path: `${path}${query}`, headers, body: body?.bytes, label };
    });
}
