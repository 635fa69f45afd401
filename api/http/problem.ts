// The API's problems (RFC 9457). A RallyError carries a problem slug (which fixes the HTTP status and the `type`), a stable machine `code`, and a human detail.
// HTTP-level code throws it directly; the domain's errors (core/errors/domain-error.ts) become one through PROBLEM_OF_KIND below, and the error middleware
// turns either into application/problem+json.
import type { DomainError, DomainErrorKind, FieldError as DomainFieldError } from '../../core/errors/domain-error.ts';

export const PROBLEM_TYPES = {
  'bad-request': { status: 400, title: 'Bad request', about: 'The request could not be understood: malformed JSON or an invalid parameter.' },
  'invalid-cursor': {
    status: 400,
    title: 'Invalid cursor',
    about: 'The pagination cursor was not issued by this API or was altered. Start again from the first page.',
  },
  'payment-required': {
    status: 402,
    title: 'Payment required',
    about: "A limit of the organization's tier is reached (the problem's code names it, e.g. member_limit_reached); a higher tier lifts it.",
  },
  unauthorized: { status: 401, title: 'Unauthorized', about: 'Credentials are missing, invalid, expired or revoked.' },
  forbidden: { status: 403, title: 'Forbidden', about: 'The caller is known but may not do this.' },
  'not-found': { status: 404, title: 'Not found', about: 'No resource or route exists at this address, or the caller may not know it exists.' },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    about: 'The route exists but not for this HTTP method. The Allow header lists the methods it takes.',
  },
  conflict: { status: 409, title: 'Conflict', about: 'The resource is not in a state that allows this, or a duplicate exists.' },
  'idempotency-key-in-use': {
    status: 409,
    title: 'Idempotency key in use',
    about: 'Another request with the same Idempotency-Key is still being processed. Retry shortly.',
  },
  'idempotency-secret-not-replayable': {
    status: 409,
    title: 'Answer not replayable',
    about: 'The first request with this Idempotency-Key succeeded, but its answer showed a secret once and is not kept; `resource_id` names what it created.',
  },
  gone: { status: 410, title: 'Gone', about: 'The resource existed but has expired.' },
  'payload-too-large': { status: 413, title: 'Payload too large', about: 'The request body is larger than this route accepts.' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type', about: 'Request bodies must be JSON, sent with Content-Type: application/json.' },
  'validation-failed': {
    status: 422,
    title: 'Validation failed',
    about: 'The request is well-formed but some fields break the rules; `errors` lists each field with a code.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency key reused',
    about: 'The Idempotency-Key was already used with a different request. Use a new key for a new request.',
  },
  'rate-limited': { status: 429, title: 'Too many requests', about: 'The caller sent more requests than its limit allows. Wait for Retry-After seconds.' },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    about: 'The request line or headers are longer than the server reads.',
  },
  'internal-error': { status: 500, title: 'Internal server error', about: 'Something failed on our side. The request id in the answer helps us find it.' },
  'not-implemented': { status: 501, title: 'Not implemented', about: 'This part of the interface is not available in this version of Rally.' },
  'search-unavailable': {
    status: 503,
    title: 'Search unavailable',
    about: 'Search took longer than its time limit or its index cannot be reached. Retry after Retry-After seconds.',
  },
  'service-unavailable': { status: 503, title: 'Service unavailable', about: 'A dependency of the service is down. Retry later.' },
} as const satisfies Record<string, { status: number; title: string; about: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export type FieldErrorCode = 'required' | 'invalid_type' | 'too_small' | 'too_big' | 'invalid_format' | 'invalid_enum' | 'unknown_field' | (string & {});

export type FieldError = DomainFieldError & { code: FieldErrorCode };

export type RallyErrorOptions = {
  /** Stable machine-readable code; defaults to the slug with underscores (`not-found` → `not_found`). */
  code?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the problem object (RFC 9457 §3.2), such as the id of a created resource. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
};

export class RallyError extends Error {
  override name = 'RallyError';
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly code: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(slug: ProblemSlug, detail: string, options: RallyErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.slug = slug;
    this.status = PROBLEM_TYPES[slug].status;
    this.code = options.code ?? slug.replaceAll('-', '_');
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

/** Throws a RallyError unless the condition holds; narrows the type for the code after it. */
export function assertThat(condition: unknown, slug: ProblemSlug, detail: string, options?: RallyErrorOptions): asserts condition {
  if (!condition) throw new RallyError(slug, detail, options);
}

/** A 422 for one field, for rules that JSON Schema cannot express. */
export function fieldError(field: string, code: FieldErrorCode, message: string): RallyError {
  return new RallyError('validation-failed', `${field}: ${message}`, { errors: [{ field, code, message }] });
}

/** Which problem each kind of domain error is; the one place a domain failure gets its HTTP status. */
const PROBLEM_OF_KIND: Record<DomainErrorKind, ProblemSlug> = {
  invalid: 'validation-failed',
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  'not-found': 'not-found',
  conflict: 'conflict',
  gone: 'gone',
  'too-large': 'payload-too-large',
  'limit-reached': 'validation-failed',
  'payment-required': 'payment-required',
  'rate-limited': 'rate-limited',
  unavailable: 'service-unavailable',
  'invalid-cursor': 'invalid-cursor',
};

export function problemOfDomainError(error: DomainError): RallyError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error.kind === 'unauthenticated')
    headers['WWW-Authenticate'] = error.code === 'invalid_token' || error.code === 'token_expired' ? 'Bearer error="invalid_token"' : 'Bearer';
  const errors = error.fields ?? (error.kind === 'limit-reached' ? [{ field: '', code: error.code, message: error.message }] : undefined);
  return new RallyError(PROBLEM_OF_KIND[error.kind], error.message, { code: error.code, errors, headers, cause: error });
}
