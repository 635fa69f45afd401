// The operations the fuzzer drives: the API's OpenAPI document built from the route declarations,
// with the routes of Rally's own pages and forms that the published document leaves out, so a new
// route is covered the day it is declared.
import { offlineRoutes } from '../../../api/reference/offline-document.ts';
import { buildOpenApiDocument } from '../../../api/reference/openapi-document.ts';

/** A JSON Schema as the document carries it; the fuzzer reads only the keywords it knows. */
export type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
};

export type Parameter = { name: string; required: boolean; schema: Schema };

export type Operation = {
  method: string;
  /** The path as the document spells it, with `{name}` placeholders. */
  path: string;
  operationId: string;
  /** Whether the route can take a credential at all (required or optional). */
  takesCredential: boolean;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  body?: Schema;
  /**
   * The 4xx statuses the operation documents itself (beside the generic 4XX problem), with the
   * media types it names, if any: an OAuth error or an HTML page answers in the form its protocol
   * or its reader needs.
   */
  ownErrors: Map<number, string[]>;
};

type DocumentParameter = { name: string; in: string; required?: boolean; schema?: Schema };
type DocumentOperation = {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: DocumentParameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};

export type OpenApiDocument = { paths: Record<string, Record<string, DocumentOperation>> };

export function fuzzedDocument(baseUrl: string): OpenApiDocument {
  const document = buildOpenApiDocument(offlineRoutes(), { publicUrl: baseUrl, version: '1', servers: [], includeBrowserRoutes: true });
  return inlineReferences(document, document.components as Record<string, Record<string, unknown>>) as OpenApiDocument;
}

/** The document with each `#/components/<kind>/X` reference replaced by X itself (the fuzzer reads plain schemas). */
function inlineReferences(value: unknown, components: Record<string, Record<string, unknown>>): unknown {
  if (Array.isArray(value)) return value.map((item) => inlineReferences(item, components));
  if (typeof value !== 'object' || value === null) return value;
  const ref = /^#\/components\/(\w+)\/(.+)$/.exec(String((value as { $ref?: unknown }).$ref));
  if (ref) return inlineReferences(components[ref[1]!]?.[ref[2]!], components);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inlineReferences(item, components)]));
}

const parametersIn = (operation: DocumentOperation, location: string): Parameter[] =>
  (operation.parameters ?? [])
    .filter((parameter) => parameter.in === location)
    .map((parameter) => ({ name: parameter.name, required: parameter.required ?? false, schema: parameter.schema ?? {} }));

function ownErrorsOf(operation: DocumentOperation): Map<number, string[]> {
  const errors = new Map<number, string[]>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (/^4\d\d$/.test(status)) errors.set(Number(status), Object.keys(response.content ?? {}));
  }
  return errors;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        takesCredential: (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0),
        pathParameters: parametersIn(operation, 'path'),
        queryParameters: parametersIn(operation, 'query'),
        body: operation.requestBody?.content?.['application/json']?.schema,
        ownErrors: ownErrorsOf(operation),
      });
    }
  }
  return operations;
}
