// The client's call signatures, typed from the generated `paths` by shallow lookups. openapi-fetch does
// the calls, but its declared types are not in the SDK's: type-checking them cost a consumer more than
// all of Rally's API description (issue 47), and a consumer's tsc reads only what the SDK exports.
import type { paths } from './generated/openapi.ts';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths that answer `Method`. */
export type PathsWith<Method extends HttpMethod> = { [P in keyof paths]: paths[P] extends { [M in Method]: object } ? P : never }[keyof paths];
type OperationOf<P extends keyof paths, Method extends HttpMethod> = paths[P] extends { [M in Method]: infer Operation } ? Operation : never;

type ContentOf<Part> = Part extends { content: infer Content } ? Content[keyof Content] : undefined;
type ParamsOption<Operation> = Operation extends { parameters: infer Params }
  ? {} extends Params
    ? { params?: Params }
    : { params: Params }
  : { params?: never };
type BodyOption<Operation> = Operation extends { requestBody: infer Body }
  ? { body: ContentOf<Body> }
  : Operation extends { requestBody?: infer Body }
    ? [Body] extends [undefined]
      ? { body?: never }
      : { body?: ContentOf<NonNullable<Body>> }
    : { body?: never };

/** What a call takes: its parameters and body as openapi.json declares them, and fetch's own options. */
export type RequestOptions<Operation> = ParamsOption<Operation> &
  BodyOption<Operation> & {
    headers?: Record<string, string | undefined> | Headers;
    signal?: AbortSignal | null;
  } & Omit<RequestInit, 'body' | 'headers' | 'method' | 'signal'>;

type Responses<Operation> = Operation extends { responses: infer Answers } ? Answers : never;
type Success = 200 | 201 | 202 | 203 | 204 | 206 | '2XX';
type SuccessOf<Operation> = { [S in keyof Responses<Operation>]: S extends Success ? ContentOf<Responses<Operation>[S]> : never }[keyof Responses<Operation>];
type ErrorOf<Operation> = { [S in keyof Responses<Operation>]: S extends Success ? never : ContentOf<Responses<Operation>[S]> }[keyof Responses<Operation>];

/** openapi-fetch's answer: the body of a 2xx as `data`, else the problem as `error`, and the Response. */
export type FetchResult<Operation> =
  { data: SuccessOf<Operation>; error?: never; response: Response } | { data?: never; error: ErrorOf<Operation>; response: Response };

type Call<Method extends HttpMethod> = <P extends PathsWith<Method>>(
  path: P,
  ...init: {} extends RequestOptions<OperationOf<P, Method>> ? [RequestOptions<OperationOf<P, Method>>?] : [RequestOptions<OperationOf<P, Method>>]
) => Promise<FetchResult<OperationOf<P, Method>>>;

/** One method per HTTP verb, as openapi-fetch's Client has them. */
export type TypedCalls = { GET: Call<'get'>; PUT: Call<'put'>; POST: Call<'post'>; DELETE: Call<'delete'>; PATCH: Call<'patch'> };
