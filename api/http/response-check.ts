// Answers are held to the route's declaration (route.ts `responses`), the one /openapi.json is built from: fields a response schema does not name are always
// stripped, so a column added to a query never leaks by accident. In test mode a status the route does not declare, or a body its schema refuses, is answered
// 500 and logged, so the test that provoked it fails loudly; problems (4xx/5xx application/problem+json) are allowed on every route.
import { isDeepStrictEqual } from 'node:util';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Middleware } from 'koa';
import type { Logger } from '../../platform/logger.ts';
import type { RallyState } from './context.ts';
import type { AnyRouteSpec } from './route.ts';
import { addFormats } from './validation.ts';
import { compileSerializer, type Serializer } from './serializer.ts';

export type ResponseCheck = (route: AnyRouteSpec) => Middleware<RallyState>;

// `removeAdditional: 'all'` strips every property a schema's `properties` does not name, whether or
// not the schema says `additionalProperties: false`.
const responseAjv = new Ajv({ allErrors: true, strict: false, removeAdditional: 'all', coerceTypes: false, useDefaults: false });
addFormats(responseAjv);

export class ResponseContractError extends Error {
  override name = 'ResponseContractError';
}

function isJsonValue(body: unknown): body is object {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return false;
  return Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype;
}

/**
 * The envelope's `data` when it is a frozen object, else undefined.
 * Answers served from memory repeat the same `data` object on every request. When that object is frozen
 * (nothing can change it after it was checked), its checked and stripped copy is remembered per route and
 * status, as JSON, with the envelope's fields the schema kept; later answers with it skip the copy, the
 * validation and the serialization of `data` (its JSON bytes are spliced into the envelope): the envelope
 * around it (meta, pagination) is built by context.ts and has one shape.
 */
function frozenData(body: object): object | undefined {
  const data = (body as { data?: unknown }).data;
  return data !== null && typeof data === 'object' && Object.isFrozen(data) ? data : undefined;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const extra = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : '';
      return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

/**
 * `compiled`: answers written by their schema's serializer where it can vouch for them (production).
 * In production (`compiled`) other answers are written once, by their schema's compiled serializer
 * (serializer.ts: declared properties only, types and required properties checked), and take the full check
 * only when it cannot vouch for them. In test mode every answer the serializer writes must match, as JSON, what
 * the full check made of it, so the two cannot drift apart.
 */
export function createResponseCheck(options: { strict: boolean; log: Logger; compiled?: boolean }): ResponseCheck {
  return (route) => {
    // Compiled on the first answer with each status: a hundred routes' schemas would slow start-up.
    const compiledOf = <T>(compile: (schema: NonNullable<AnyRouteSpec['responses'][number]['schema']>) => T | undefined) => {
      const compiled = new Map<number, T | null>();
      return (status: number): T | null => {
        if (!compiled.has(status)) {
          const schema = route.responses[status]?.schema;
          compiled.set(status, (schema && compile(schema)) ?? null);
        }
        return compiled.get(status)!;
      };
    };
    const validatorOf = compiledOf<ValidateFunction>((schema) => responseAjv.compile(schema));
    const serializerOf = compiledOf<Serializer>(compileSerializer);
    const declared = Object.keys(route.responses).join(', ');
    type Checked = { bytes: Buffer; envelope: string[] };
    const checkedData = new Map<number, WeakMap<object, Checked>>();
    const checkedOf = (status: number) => {
      if (!checkedData.has(status)) checkedData.set(status, new WeakMap());
      return checkedData.get(status)!;
    };

    return async function checkResponse(ctx, next) {
      await next();
      const status = ctx.status;
      if (!(status in route.responses)) {
        if (!options.strict) return;
        throw new ResponseContractError(`${route.operationId} answered ${status}, which it does not declare (declared: ${declared}).`);
      }
      const validate = validatorOf(status);
      if (!validate || !isJsonValue(ctx.body)) return;
      const data = frozenData(ctx.body);
      const checked = data && checkedOf(status).get(data);
      if (checked) {
        // The remembered data goes out as the bytes encoded when it was checked; only the small
        // envelope fields around it are encoded per answer (a large answer, such as two years of
        // daily analytics, is then never re-encoded).
        const body = ctx.body as Record<string, unknown>;
        const parts: Buffer[] = [];
        let text = '{';
        for (const field of checked.envelope) {
          if (field !== 'data' && body[field] === undefined) continue;
          text += `${text === '{' ? '' : ','}${JSON.stringify(field)}:`;
          if (field === 'data') {
            parts.push(Buffer.from(text), checked.bytes);
            text = '';
          } else {
            text += JSON.stringify(body[field]);
          }
        }
        parts.push(Buffer.from(`${text}}`));
        // Koa keeps the Content-Type the JSON body already set when the body becomes bytes.
        ctx.body = Buffer.concat(parts);
        return;
      }
      const written = (options.compiled || options.strict) && !data ? serializerOf(status)?.(ctx.body) : undefined;
      if (written !== undefined && !options.strict) {
        // Koa keeps the Content-Type the JSON body already set when the body becomes text.
        ctx.body = written;
        return;
      }
      // A copy as it will go on the wire (dates as strings), so stripping never touches shared objects.
      const answer: unknown = JSON.parse(JSON.stringify(ctx.body));
      const valid = validate(answer);
      if (!valid) {
        const problems = describe(validate.errors);
        if (options.strict) throw new ResponseContractError(`${route.operationId} answered ${status} with a body its schema refuses: ${problems}`);
        options.log.warn('response does not match its schema', { operation: route.operationId, status, errors: problems });
      }
      if (valid && written !== undefined && !isDeepStrictEqual(JSON.parse(written), answer)) {
        throw new ResponseContractError(
          `${route.operationId} answered ${status}: its compiled serializer wrote ${written}, the check ${JSON.stringify(answer)}`,
        );
      }
      if (valid && data)
        checkedOf(status).set(data, { bytes: Buffer.from(JSON.stringify((answer as { data: unknown }).data)), envelope: Object.keys(answer as object) });
      const type = ctx.type;
      ctx.body = answer;
      if (type) ctx.type = type;
    };
  };
}
