// Request bodies for one operation: a plausible body from its schema, then one flaw at a time (a property of the wrong type, a required one missing, an unknown
// one added, the wrong root type, JSON cut short, nesting far too deep, duplicate keys, nothing at all), then how it is labelled and encoded on the wire (wrong
// Content-Type, a Content-Encoding it does not decode under).
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Schema } from './openapi.ts';
import { deeplyNested, hostile, jsonBytes, plausible, RawJson } from './values.ts';

export type WireBody = { bytes: Buffer; contentType?: string; contentEncoding?: string; label: string };

/** Dotted paths to every property, one level into nested objects. */
function propertyPaths(schema: Schema): { path: string[]; schema: Schema }[] {
  const paths: { path: string[]; schema: Schema }[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    paths.push({ path: [name], schema: property });
    for (const [inner, innerSchema] of Object.entries(property.properties ?? {})) paths.push({ path: [name, inner], schema: innerSchema });
  }
  return paths;
}

function withValue(body: unknown, path: string[], value: unknown): unknown {
  const root = (body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body } : {}) as Record<string, unknown>;
  const [head, ...rest] = path;
  root[head!] = rest.length === 0 ? value : withValue(root[head!], rest, value);
  return root;
}

type Flaw = { label: string; bytes: Buffer };

function flaws(schema: Schema): fc.Arbitrary<Flaw> {
  const valid = plausible(schema);
  const paths = propertyPaths(schema);
  const required = schema.required ?? [];
  const choices: fc.Arbitrary<Flaw>[] = [
    valid.map((body) => ({ label: 'plausible body', bytes: jsonBytes(body) })),
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 20 }), hostile({})).map(([body, name, value]) => ({
      label: `extra field ${JSON.stringify(name)}`,
      bytes: jsonBytes({ ...(typeof body === 'object' && body ? body : {}), [name]: value }),
    })),
    hostile(schema).map((body) => ({ label: 'hostile root value', bytes: jsonBytes(body) })),
    fc.tuple(valid, fc.double({ min: 0, max: 1, noNaN: true })).map(([body, share]) => {
      const text = jsonBytes(body);
      return { label: 'truncated JSON', bytes: text.subarray(0, Math.floor(text.length * share)) };
    }),
    fc.tuple(fc.integer({ min: 33, max: 6_000 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([levels, kind]) => ({
      label: `nested ${levels} levels`,
      bytes: Buffer.from(deeplyNested(levels, kind)),
    })),
    fc
      .constantFrom('', ' ', 'null', '{"a":1,"a":2}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '\ufeff{}', '{}garbage', 'NaN')
      .map((text) => ({
        label: `body ${JSON.stringify(text)}`,
        bytes: Buffer.from(text),
      })),
  ];
  if (paths.length > 0) {
    choices.push(
      fc.constantFrom(...paths).chain((target) =>
        fc.tuple(valid, hostile(target.schema)).map(([body, value]) => ({
          label: `${target.path.join('.')} hostile`,
          bytes: jsonBytes(withValue(body, target.path, value)),
        })),
      ),
    );
  }
  if (required.length > 0) {
    choices.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([body, name]) => {
        const copy = { ...(body as Record<string, unknown>) };
        delete copy[name];
        return { label: `${name} missing`, bytes: jsonBytes(copy) };
      }),
    );
  }
  return fc.oneof(...choices);
}

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/problem+json',
      'garbage',
      '*/*',
      'application/',
    ),
  },
);

type Encoding = { label: string; apply(bytes: Buffer): Buffer; header?: string };
const encodings: fc.Arbitrary<Encoding> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ label: 'identity', apply: (bytes: Buffer) => bytes }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Encoding>(
      { label: 'gzip', header: 'gzip', apply: (bytes) => gzipSync(bytes) },
      { label: 'deflate', header: 'deflate', apply: (bytes) => deflateSync(bytes) },
      { label: 'br', header: 'br', apply: (bytes) => brotliCompressSync(bytes) },
      { label: 'gzip of garbage', header: 'gzip', apply: (bytes) => Buffer.concat([Buffer.from([0x1f, 0x8b]), bytes]) },
      { label: 'deflate of garbage', header: 'deflate', apply: (bytes) => bytes },
      { label: 'br of garbage', header: 'br', apply: (bytes) => bytes },
      { label: 'gzip cut short', header: 'gzip', apply: (bytes) => gzipSync(bytes).subarray(0, 12) },
      { label: 'unknown encoding', header: 'compress', apply: (bytes) => bytes },
      { label: 'encoding list', header: 'gzip, br', apply: (bytes) => bytes },
      { label: 'garbage encoding', header: '%%%;q=x', apply: (bytes) => bytes },
      { label: 'identity spelled out', header: 'identity', apply: (bytes) => bytes },
    ),
  },
);

/** The body of a request to an operation; operations without one get none, or garbage anyway. */
export function wireBodies(schema: Schema | undefined): fc.Arbitrary<WireBody | undefined> {
  const content = schema
    ? flaws(schema)
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: hostile({}).map((value) => ({ label: 'unexpected body', bytes: jsonBytes(value) })) },
        { weight: 1, arbitrary: fc.constant({ label: 'unexpected deep body', bytes: jsonBytes(new RawJson(deeplyNested(5_000, 'object'))) }) },
      );
  return fc.tuple(content, contentTypes, encodings).map(
    ([flaw, contentType, encoding]) =>
      flaw && {
        bytes: encoding.apply(flaw.bytes),
        contentType,
        contentEncoding: encoding.header,
        label: `${flaw.label}, ${contentType ?? 'no content type'}, ${encoding.label}`,
      },
  );
}
