// The errors the domain throws. Each has a kind (what went wrong, in words a caller can act on) and
// a stable machine code. The domain knows nothing of HTTP or Temporal: the API maps kinds to RFC 9457
// problems (PROBLEM_OF_KIND in api/http/problem.ts), the worker to retryable or final ApplicationFailures
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

export class Invalid extends DomainError {
  constructor(detail: string, options?: Options) {
    super('invalid', detail, options);
  }
}
export class Unauthenticated extends DomainError {
  constructor(detail: string, options?: Options) {
    super('unauthenticated', detail, options);
  }
}
export class Forbidden extends DomainError {
  constructor(detail: string, options?: Options) {
    super('forbidden', detail, options);
  }
}
export class NotFound extends DomainError {
  constructor(detail: string, options?: Options) {
    super('not-found', detail, options);
  }
}
export class Conflict extends DomainError {
  constructor(detail: string, options?: Options) {
    super('conflict', detail, options);
  }
}
export class Gone extends DomainError {
  constructor(detail: string, options?: Options) {
    super('gone', detail, options);
  }
}
export class TooLarge extends DomainError {
  constructor(detail: string, options?: Options) {
    super('too-large', detail, options);
  }
}
export class LimitReached extends DomainError {
  constructor(detail: string, options?: Options) {
    super('limit-reached', detail, { code: 'limit_reached', ...options });
  }
}
/** A limit of the organization's paid tier: upgrading the tier lifts it (402). */
export class PaymentRequired extends DomainError {
  constructor(detail: string, options?: Options) {
    super('payment-required', detail, options);
  }
}
export class RateLimited extends DomainError {
  constructor(detail: string, options?: Options) {
    super('rate-limited', detail, options);
  }
}
export class Unavailable extends DomainError {
  constructor(detail: string, options?: Options) {
    super('unavailable', detail, options);
  }
}

/** A 422-style error for one field, for rules JSON Schema cannot express. */
export function invalidField(field: string, code: string, message: string): Invalid {
  return new Invalid(`${field}: ${message}`, { code, fields: [{ field, code, message }] });
}

/** Throws the given kind of error unless the condition holds; narrows the type for the code after it. */
export function ensure(condition: unknown, Kind: new (detail: string, options?: Options) => DomainError, detail: string, options?: Options): asserts condition {
  if (!condition) throw new Kind(detail, options);
}
