// Values from a JSON Schema, as fast-check arbitraries: `plausible` ones that a schema would accept (so a request reaches past validation into the handler) and
// `hostile` ones that it should refuse (wrong types, 100k-character strings, NUL bytes, invalid UTF-8, numbers out of any range, deep nesting). Best effort on
// purpose: a plausible value that turns out invalid is just another input.
import fc from 'fast-check';
import type { Schema } from './openapi.ts';

/**
 * Stands for bytes that are not UTF-8. JSON text cannot carry them, so the request builder swaps
 * this marker for raw 0xFF 0xFE bytes in bodies and for %FF%FE in paths and queries.
 */
export const INVALID_UTF8 = '\u0001not-utf-8\u0001';
export const INVALID_UTF8_BYTES = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);

const HUGE = 100_000;
const URL_LONG = 2_000;
const MAX_PLAUSIBLE_DEPTH = 4;

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

function plausibleString(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, Math.max(minLength, 40));
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'date-time':
      return fc.date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc.date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    default:
      break;
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length >= minLength && value.length <= (schema.maxLength ?? Infinity));
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain text.
    }
  }
  return fc.string({ minLength, maxLength });
}

function plausibleNumber(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
  return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
}

/** A value the schema would probably accept. */
export function plausible(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((alternative) => plausible(alternative, depth)));
  if (schema.allOf?.length) return plausible(Object.assign({}, ...schema.allOf) as Schema, depth);
  const type = typesOf(schema).find((candidate) => candidate !== 'null') ?? typesOf(schema)[0];
  switch (type) {
    case 'string':
      return plausibleString(schema);
    case 'integer':
      return plausibleNumber(schema, true);
    case 'number':
      return plausibleNumber(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > MAX_PLAUSIBLE_DEPTH) return fc.constant([]);
      const minLength = schema.minItems ?? 0;
      const constraints = { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) };
      const items = plausible(schema.items ?? {}, depth + 1);
      return schema.uniqueItems ? fc.uniqueArray(items, { ...constraints, selector: (item) => JSON.stringify(item) }) : fc.array(items, constraints);
    }
    case 'object': {
      if (depth > MAX_PLAUSIBLE_DEPTH) return fc.constant({});
      const properties = schema.properties ?? {};
      const shape = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, plausible(property, depth + 1)]));
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Nested arrays or objects, `levels` deep; built as text because it may be deeper than JSON.stringify goes. */
export function deeplyNested(levels: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(levels)}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** A value written as raw JSON text instead of being stringified (see jsonBytes). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * The JSON bytes of a value: RawJson parts are written as they are, and INVALID_UTF8 becomes bytes
 * that are not UTF-8.
 */
export function jsonBytes(value: unknown): Buffer {
  const raws: string[] = [];
  const text =
    JSON.stringify(value, (_key, item: unknown) => {
      if (!(item instanceof RawJson)) return item;
      raws.push(item.text);
      return `\u0002raw${raws.length - 1}\u0002`;
    }) ?? 'null';
  const withRaw = text.replace(/"\\u0002raw(\d+)\\u0002"/g, (_match, index: string) => raws[Number(index)]!);
  const invalid = JSON.stringify(INVALID_UTF8).slice(1, -1);
  const parts = withRaw.split(invalid);
  return Buffer.concat(parts.flatMap((part, index) => (index === 0 ? [Buffer.from(part)] : [INVALID_UTF8_BYTES, Buffer.from(part)])));
}

/** Strange text of any length up to `huge` characters. */
function strangeStrings(huge: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      'a'.repeat(huge),
      'é'.repeat(huge / 2),
      '\u0000',
      'a\u0000b',
      INVALID_UTF8,
      `x${INVALID_UTF8}y`,
      '\ud800',
      'a\udfffb',
      '',
      ' ',
      '%00',
      '../../etc/passwd',
      '\u202e\ufeff',
      "'; DROP TABLE users; --",
    ),
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).map((text) => text.repeat(Math.ceil(huge / text.length)).slice(0, huge)),
  );
}

const hostileStrings = strangeStrings(HUGE);
// A URL longer than Node's 16 KiB header limit never reaches Rally (its 431 is checked too, but
// rarely): most long path and query values stay below it.
const urlStrings = fc.oneof({ weight: 6, arbitrary: strangeStrings(URL_LONG) }, { weight: 1, arbitrary: hostileStrings });

const hostileNumbers: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(2 ** 63, -(2 ** 63), 2 ** 31, -(2 ** 31) - 1, 1e308, -1e308, 5e-324, -1, 0, 1.5, -0.5, Number.MAX_SAFE_INTEGER + 2),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A value the schema must refuse, or a legal value at a size or range that usually breaks code. */
export function hostile(schema: Schema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const wrongTypes: fc.Arbitrary<unknown>[] = [];
  if (!types.includes('string')) wrongTypes.push(fc.constantFrom('12', 'true', 'null', '{}'));
  if (!types.includes('number') && !types.includes('integer')) wrongTypes.push(fc.constantFrom(0, 42, -1.5));
  if (!types.includes('boolean')) wrongTypes.push(fc.boolean());
  if (!types.includes('null')) wrongTypes.push(fc.constant(null));
  if (!types.includes('array')) wrongTypes.push(fc.constantFrom([], ['x'], [{}]));
  if (!types.includes('object')) wrongTypes.push(fc.constantFrom({}, { a: 1 }));
  return fc.oneof(
    ...wrongTypes,
    hostileStrings,
    hostileNumbers,
    fc
      .tuple(fc.integer({ min: 33, max: 6_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'))
      .map(([levels, kind]) => new RawJson(deeplyNested(levels, kind))),
    fc.array(hostileStrings, { maxLength: 3 }),
    fc.jsonValue({ maxDepth: 3 }),
  );
}

/** Text for a path segment or query value: garbage, hostile strings, or a plausible value. */
export function hostileText(schema: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    urlStrings,
    hostileNumbers.map(String),
    fc.constantFrom('', '0', '-1', 'true', 'null', 'undefined', 'NaN', '1e309', '9223372036854775808', '0000-00-00', '%', '%ZZ', '%C3%28', '..', '.', '*'),
    plausible(schema).map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))),
  );
}

/**
 * Cursors that decode: base64url of JSON arrays holding values a database column would refuse
 * (year 0, 2^63, 1e308, a NUL byte, a date where a number belongs). Real cursors are opaque; these test that
 * whatever decodes is still checked before it reaches a query.
 */
export const forgedCursors: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      hostileNumbers,
      fc.constantFrom('0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'popular', 'new', 'a\u0000b', '\u0000'),
      fc.uuid(),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    { maxLength: 4 },
  )
  .map((parts) => Buffer.from(JSON.stringify(parts)).toString('base64url'));
