import { expect } from 'chai';
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  invalidField,
  LimitReached,
  NotFound,
  RateLimited,
  TooLarge,
  Unauthenticated,
  Unavailable,
  type DomainErrorKind,
} from '../../../core/errors/domain-error.ts';
import { problemOfDomainError } from '../../../api/http/problem.ts';

// The HTTP status of each kind of domain failure, as the API reference lists them.
const STATUS_OF_KIND: [DomainError, number, string][] = [
  [invalidField('title', 'too_small', 'is too short'), 422, 'validation-failed'],
  [new Unauthenticated('who are you', { code: 'invalid_token' }), 401, 'unauthorized'],
  [new Forbidden('no'), 403, 'forbidden'],
  [new NotFound('nothing'), 404, 'not-found'],
  [new Conflict('already'), 409, 'conflict'],
  [new Gone('expired'), 410, 'gone'],
  [new TooLarge('too big'), 413, 'payload-too-large'],
  [new LimitReached('at most 10'), 422, 'validation-failed'],
  [new RateLimited('slow down', { retryAfterSeconds: 2.2 }), 429, 'rate-limited'],
  [new Unavailable('down'), 503, 'service-unavailable'],
  [new DomainError('invalid-cursor' as DomainErrorKind, 'bad cursor'), 400, 'invalid-cursor'],
];

describe('domain errors as problems (api/http/problem.ts)', () => {
  for (const [error, status, slug] of STATUS_OF_KIND) {
    it(`answers ${status} ${slug} for a ${error.kind} error, keeping its code`, () => {
      const problem = problemOfDomainError(error);
      expect(problem.status).to.equal(status);
      expect(problem.slug).to.equal(slug);
      expect(problem.code).to.equal(error.code);
      expect(problem.message).to.equal(error.message);
    });
  }

  it('carries a field error into errors[]', () => {
    expect(problemOfDomainError(invalidField('title', 'too_small', 'is too short')).errors).to.deep.equal([
      { field: 'title', code: 'too_small', message: 'is too short' },
    ]);
  });

  it('lists a reached limit as an error with code limit_reached', () => {
    expect(problemOfDomainError(new LimitReached('at most 10 keys')).errors).to.deep.equal([{ field: '', code: 'limit_reached', message: 'at most 10 keys' }]);
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(problemOfDomainError(new RateLimited('slow down', { retryAfterSeconds: 2.2 })).headers['Retry-After']).to.equal('3');
    expect(problemOfDomainError(new RateLimited('slow down', { retryAfterSeconds: 0 })).headers['Retry-After']).to.equal('1');
  });

  it('asks for a bearer token on 401', () => {
    expect(problemOfDomainError(new Unauthenticated('expired', { code: 'token_expired' })).headers['WWW-Authenticate']).to.equal(
      'Bearer error="invalid_token"',
    );
  });
});
