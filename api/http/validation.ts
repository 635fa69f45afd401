// Ajv turns the JSON Schemas kept beside each route into validators, compiled once at start-up.
// Its errors become the 422 `errors[]` items with the stable codes of the API reference.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError, FieldErrorCode } from './problem.ts';
import { RallyError } from './problem.ts';

// ajv-formats ships CommonJS; under ESM its function sits on `.default`.
export const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

// ajv-formats also lets `urn:uuid:<uuid>` through, which PostgreSQL then refuses mid-query. An id
// is the hyphenated 8-4-4-4-12 form only (either case, as RFC 9562 reads it); braces, URNs and
// hyphen-less spellings are refused here, before any query.
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes, strict: false, removeAdditional: false });
  addFormats(ajv);
  ajv.addFormat('uuid', CANONICAL_UUID);
  return ajv;
}

// Bodies are typed JSON and must not be coerced; query strings and path segments are text and must be.
const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

export type InputLocation = 'body' | 'query' | 'params';

const KEYWORD_CODES: Record<string, FieldErrorCode> = {
  required: 'required',
  type: 'invalid_type',
  minLength: 'too_small',
  minimum: 'too_small',
  exclusiveMinimum: 'too_small',
  minItems: 'too_small',
  minProperties: 'too_small',
  maxLength: 'too_big',
  maximum: 'too_big',
  exclusiveMaximum: 'too_big',
  maxItems: 'too_big',
  maxProperties: 'too_big',
  format: 'invalid_format',
  pattern: 'invalid_format',
  enum: 'invalid_enum',
  const: 'invalid_enum',
  additionalProperties: 'unknown_field',
  uniqueItems: 'duplicate_items',
};

function fieldPath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty) segments.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && params.additionalProperty) segments.push(params.additionalProperty);
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function message(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return 'is not a known field';
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'enum') return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return error.message ?? 'is invalid';
}

export function toFieldErrors(errors: ErrorObject[], location: InputLocation): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    // anyOf/oneOf wrappers repeat what their branches already said.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const field = fieldPath(error) || location;
    const code = KEYWORD_CODES[error.keyword] ?? 'invalid';
    const key = `${field}:${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ field, code, message: message(error) });
  }
  return result;
}

export type Validator = (value: unknown) => unknown;

/**
 * Fields holding a NUL character, which PostgreSQL cannot store in text. Checked for every string
 * of every request part here, once, rather than per route; keys count as much as values.
 */
export function fieldsWithNul(value: unknown): string[] {
  const found: string[] = [];
  const pending: { path: string; value: unknown }[] = [{ path: '', value }];
  while (pending.length > 0) {
    const { path, value: current } = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) found.push(path);
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ path: `${path}[${index}]`, value: item }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const itemPath = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) found.push(itemPath.replaceAll('\u0000', '\\u0000'));
        else pending.push({ path: itemPath, value: item });
      }
    }
  }
  return found;
}

function rejectNul(value: unknown, location: InputLocation): void {
  // A cursor is opaque and never stored: whatever its bytes, its codec answers 400 invalid_cursor.
  const fields = fieldsWithNul(value).filter((field) => !(location === 'query' && field === 'cursor'));
  if (fields.length === 0) return;
  const errors = fields.map((field) => ({ field: field || location, code: 'invalid_characters', message: 'must not contain the NUL character (\\u0000)' }));
  throw new RallyError(
    'validation-failed',
    `The ${location === 'params' ? 'path' : location} is invalid: ${errors.map((error) => error.field).join(', ')} must not contain NUL characters.`,
    { errors },
  );
}

/**
 * Compiles a schema for one request part; the returned function throws the 422 or returns the value.
 * Without a schema the part is only checked for NUL characters.
 */
export function compileValidator(schema: object | null, location: InputLocation): Validator {
  const validate: ValidateFunction | undefined = schema ? (location === 'body' ? bodyAjv : textAjv).compile(schema) : undefined;
  return (value) => {
    rejectNul(value, location);
    if (!validate || validate(value)) return value;
    const errors = toFieldErrors(validate.errors ?? [], location);
    const summary = errors.map((error) => `${error.field} ${error.message}`).join('; ');
    throw new RallyError('validation-failed', `The ${location === 'params' ? 'path' : location} is invalid: ${summary}.`, { errors });
  };
}
