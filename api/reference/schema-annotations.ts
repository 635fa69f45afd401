// What a reader of a named schema sees beside its types: an example on every scalar property (from schema-examples.ts, by the property's name), and that
// required strings are never empty (minLength 1: a required field is sent with content; an empty one is refused or never produced). Applied to the document's
// components only; the API's own validators keep the declarations as they are.
import { exampleOf } from './schema-examples.ts';

type Schema = Record<string, unknown> & {
  type?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);
const isScalar = (schema: Schema) => typeof schema.type === 'string' && SCALARS.has(schema.type);

function annotate(schema: Schema, name: string, required: boolean): Schema {
  if (typeof schema !== 'object' || schema === null || '$ref' in schema) return schema;
  const result: Schema = { ...schema };
  if (isScalar(result) && result.examples === undefined && result.example === undefined) result.examples = [exampleOf(result as never, name)];
  if (required && result.type === 'string' && !result.minLength) result.minLength = 1;
  if (result.properties) {
    const requiredNames = new Set(result.required ?? []);
    result.properties = Object.fromEntries(Object.entries(result.properties).map(([key, value]) => [key, annotate(value, key, requiredNames.has(key))]));
  }
  if (result.items) result.items = annotate(result.items, name, false);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (result[key]) result[key] = result[key].map((branch) => annotate(branch, name, false));
  return result;
}

/** The components with their examples and non-empty required strings. */
export function annotateComponents(schemas: Record<string, object>): Record<string, object> {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, annotate(schema as Schema, '', false)]));
}
