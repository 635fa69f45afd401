// Examples for the document: one value for each request and answer, made from its schema. A shape that says `examples` (TypeBox's option) gives its own;
// otherwise a value is made from the type, format, bounds and the field's name, and is then validated against the schema, so an example the API would refuse
// never reaches the document (the build fails and names the schema to annotate).
import { Ajv } from 'ajv';
import { addFormats } from '../http/validation.ts';
import { EXAMPLE_BY_NAME } from './example-values.ts';

type Schema = {
  type?: string | string[];
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

const UUIDS = ['3f2c1a9e-5b7d-4c2e-9a61-0d8e4b7f2a10', '8a6e0f4b-2c1d-4e9f-b3a7-5d6c7e8f9a0b', 'c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e5f'];
const FORMATS: Record<string, string> = {
  'date-time': '2026-05-01T09:30:00.000Z',
  date: '2026-05-01',
  email: 'ada@example.org',
  uri: 'https://example.org/rally/river-trees.png',
  url: 'https://example.org/rally/river-trees.png',
  hostname: 'example.org',
  ipv4: '203.0.113.7',
  ipv6: '2001:db8::7',
};
// Candidates tried against a pattern, in order, when neither the name nor the format gives a value.
const PATTERNED = ['https://example.org/rally/river-trees.png', 'river-trees', 'river_trees', 'thumb_640.webp', 'NL', 'petition.read', 'a1'];

function fit(text: string, schema: Schema): string {
  let value = text;
  while (value.length < (schema.minLength ?? 0)) value += ` ${text}`;
  return schema.maxLength !== undefined ? value.slice(0, schema.maxLength) : value;
}

function stringExample(schema: Schema, name: string): string {
  if (schema.format === 'uuid') return UUIDS[name.length % UUIDS.length]!;
  const candidates = [EXAMPLE_BY_NAME[name], schema.format && FORMATS[schema.format], ...(schema.pattern ? PATTERNED : [])];
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  for (const candidate of candidates) {
    if (!candidate) continue;
    const value = schema.format ? candidate : fit(candidate, schema);
    if (!pattern || pattern.test(value)) return value;
  }
  // Never the field's name or "text": a placeholder tells a reader nothing (test/api/openapi-examples.test.ts).
  throw new Error(`No example for the string field "${name}": add one to api/reference/example-values.ts or give the schema \`examples\``);
}

function numberExample(schema: Schema, name: string): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const wanted = /count|total/i.test(name) ? 128 : /goal/i.test(name) ? 1000 : (low ?? 1);
  const floor = Math.max(wanted, low ?? -Infinity);
  return schema.maximum !== undefined ? Math.min(floor, schema.maximum) : floor;
}

/** A value the schema accepts; `name` is the field it is for, which picks a telling value. */
export function exampleOf(schema: Schema, name = ''): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return exampleOf(branches.find((branch) => branch.type !== 'null') ?? branches[0]!, name);
  if (schema.allOf?.length) return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part, name)));
  const type = Array.isArray(schema.type) ? schema.type.find((each) => each !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, exampleOf(property, key)]));
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items ?? {}, name));
    case 'string':
      return stringExample(schema, name);
    case 'integer':
    case 'number':
      return numberExample(schema, name);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** An example of the schema (for the field `name`) that the schema accepts; throws naming `where` when none could be made. */
export function checkedExample(schema: object, where: string, name = ''): unknown {
  const example = exampleOf(schema as Schema, name);
  const validate = ajv.compile(schema);
  if (!validate(example)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
    throw new Error(`The example made for ${where} breaks its schema (${problems}); give the shape an \`examples\` option`);
  }
  return example;
}
