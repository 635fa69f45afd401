// The errors the domain throws. Each has a kind (what went wrong, in words a caller can act on) and a stable machine code. The domain knows nothing of HTTP or
// Temporal: the API maps kinds to RFC 9457 problems (PROBLEM_OF_KIND in api/http/problem.ts), the worker to retryable or final ApplicationFailures
// (activities/failures.ts). Both read the kind, never the message.

export type DomainErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'gone'
  | 'too-large'
  | 'limit-reached'
  | 'payment-required'
  | 'rate-limited'
  | 'unavailable'
  | 'invalid-cursor';

/** One field that broke a rule; `code` is one of the stable validation codes of the API reference. */
export type FieldError = { field: string; message: string; code: string };

export type DomainErrorOptions = {
  /** Stable machine-readable code; defaults to the kind with underscores (`not-found` → `not_found`). */
  code?: string;
  fields?: FieldError[];
  /** For `rate-limited` and `unavailable`: when trying again makes sense. */
  retryAfterSeconds?: number;
  cause?: unknown;
};

export class DomainError extends Error {
  override name = 'DomainError';
  readonly kind: DomainErrorKind;
  readonly code: string;
  readonly fields: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: DomainErrorKind, detail: string, options: DomainErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.kind = kind;
    this.code = options.code ?? kind.replaceAll('-', '_');
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

type Options = DomainErrorOptions;

/** The class of the errors of one kind, so that each kind below is declared in one line. */
function ofKind(kind: DomainErrorKind) {
  return class extends DomainError {
    constructor(detail: string, options?: Options) {
      super(kind, detail, options);
    }
  };
}

// The kinds the domain throws by name (the API's PROBLEM_OF_KIND says which problem each becomes).
export class Invalid extends ofKind('invalid') {} // the input breaks a rule; `fields` says which
export class Unauthenticated extends ofKind('unauthenticated') {} // no caller, or credentials that are not good
export class Forbidden extends ofKind('forbidden') {} // a known caller who may not do this
export class NotFound extends ofKind('not-found') {} // nothing there, or nothing this caller may know of
export class Conflict extends ofKind('conflict') {} // the state forbids it now, or a duplicate exists
export class Gone extends ofKind('gone') {} // it was there and is no more (expired, deleted)
export class TooLarge extends ofKind('too-large') {} // the content is over its size limit
export class LimitReached extends ofKind('limit-reached') {} // a count limit of the platform is reached
export class PaymentRequired extends ofKind('payment-required') {} // a limit of the organization's paid tier: upgrading lifts it
export class RateLimited extends ofKind('rate-limited') {} // too many attempts: `retryAfterSeconds` says when to try again
export class Unavailable extends ofKind('unavailable') {} // a service it needs is down for now; trying again later may work

/** A 422-style error for one field, for rules JSON Schema cannot express. */
export function invalidField(field: string, code: string, message: string): Invalid {
  return new Invalid(`${field}: ${message}`, { code, fields: [{ field, code, message }] });
}

/** Throws the given kind of error unless the condition holds; narrows the type for the code after it. */
export function ensure(condition: unknown, Kind: new (detail: string, options?: Options) => DomainError, detail: string, options?: Options): asserts condition {
  if (!condition) throw new Kind(detail, options);
}
