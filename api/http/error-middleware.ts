// The outermost middleware: every failure, ours or a library's, leaves as an RFC 9457 problem.
// 5xx details are logged with the request id and never shown to the client.
import type { Middleware } from 'koa';
import { domainErrorOfConstraint } from '../../core/errors/constraints.ts';
import { transientDatabaseFailure } from '../../core/errors/transient-failures.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import type { Logger } from '../../platform/logger.ts';
import { redactSecretUrls } from '../../platform/secret-urls.ts';
import { PROBLEM_TYPES, problemOfDomainError, RallyError, type ProblemSlug } from './problem.ts';
import type { RallyState } from './context.ts';

export const API_VERSION = '1';

// Errors thrown by koa-body / co-body / raw-body carry an HTTP status; map the ones clients cause.
const LIBRARY_STATUS_TO_SLUG: Record<number, ProblemSlug> = {
  400: 'bad-request',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
};

export function toRallyError(error: unknown): RallyError | undefined {
  if (error instanceof RallyError) return error;
  if (error instanceof DomainError) return problemOfDomainError(error);
  const fromDatabase = domainErrorOfConstraint(error);
  if (fromDatabase) return problemOfDomainError(fromDatabase);
  const transient = transientDatabaseFailure(error);
  if (transient) return problemOfDomainError(transient);
  const status = (error as { status?: unknown; expose?: unknown })?.status;
  if (typeof status === 'number' && LIBRARY_STATUS_TO_SLUG[status]) {
    const detail =
      status === 400
        ? 'The request body is not valid JSON.'
        : status === 413
          ? 'The request body is larger than this route accepts.'
          : 'Request bodies must be JSON.';
    return new RallyError(LIBRARY_STATUS_TO_SLUG[status]!, detail);
  }
  return undefined;
}

export function createErrorMiddleware(options: { publicUrl: string; log: Logger }): Middleware<RallyState> {
  const typeBase = `${options.publicUrl}/problems/`;
  return async function writeProblem(ctx, next) {
    ctx.set('X-API-Version', API_VERSION);
    try {
      await next();
    } catch (thrown) {
      let error = toRallyError(thrown);
      if (!error) {
        options.log.error('unhandled error', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          // Portal, unsubscribe and invitation paths carry their credential: it stays out of the logs.
          path: redactSecretUrls(ctx.path),
          error: thrown instanceof Error ? thrown.stack : String(thrown),
          // A row that broke its schema: which fields and why (never the row's values).
          issues: (thrown as { issues?: { path?: unknown; message?: string }[] }).issues?.map((issue) => ({ path: issue.path, message: issue.message })),
        });
        error = new RallyError('internal-error', 'An unexpected error occurred. Quote the request id when reporting it.');
      } else if (error.status >= 500) {
        // A dependency's failure (a 503): not a bug, but an operator wants to see it.
        options.log.warn('request failed on a dependency', {
          request_id: ctx.state.requestId,
          code: error.code,
          error: thrown instanceof Error ? thrown.message : String(thrown),
        });
      }
      const problem = PROBLEM_TYPES[error.slug];
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      ctx.type = 'application/problem+json';
      ctx.body = {
        type: typeBase + error.slug,
        title: problem.title,
        status: error.status,
        code: error.code,
        detail: error.message,
        message: error.message,
        instance: ctx.path,
        request_id: ctx.state.requestId,
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extensions,
      };
    }
  };
}
