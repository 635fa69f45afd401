// Which database failures are worth a retry (PostgreSQL's SQLSTATE appendix): connection exceptions
// (class 08), shutdowns and too many connections are an outage; serialization failures, deadlocks,
// lock and statement timeouts are contention. Anything else is not transient.
import { expect } from 'chai';
import { ConnectionError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { transientDatabaseFailure } from '../../../core/errors/transient-failures.ts';

const pgError = (code: string) => Object.assign(new Error(`pg error ${code}`), { code });

describe('transientDatabaseFailure (core/errors/transient-failures.ts)', () => {
  for (const [code, meaning] of [
    ['08006', 'connection failure'],
    ['08001', 'cannot establish connection'],
    ['57P01', 'admin shutdown'],
    ['57P03', 'cannot connect now'],
    ['53300', 'too many connections'],
  ] as const) {
    it(`calls SQLSTATE ${code} (${meaning}) an outage: unavailable, retry after 5 s`, () => {
      const failure = transientDatabaseFailure(pgError(code));
      expect(failure).to.include({ kind: 'unavailable', code: 'database_unavailable', retryAfterSeconds: 5 });
    });
  }

  for (const [code, meaning] of [
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock detected'],
    ['55P03', 'lock not available'],
    ['57014', 'query canceled'],
  ] as const) {
    it(`calls SQLSTATE ${code} (${meaning}) contention: unavailable, retry after 1 s`, () => {
      const failure = transientDatabaseFailure(pgError(code));
      expect(failure).to.include({ kind: 'unavailable', code: 'database_busy', retryAfterSeconds: 1 });
    });
  }

  it('finds the SQLSTATE on a wrapped cause', () => {
    const wrapped = new Error('query failed', { cause: pgError('40P01') });
    expect(transientDatabaseFailure(wrapped)).to.include({ code: 'database_busy' });
  });

  it("calls Slonik's ConnectionError an outage", () => {
    expect(transientDatabaseFailure(new ConnectionError('connect ECONNREFUSED 127.0.0.1:5432'))).to.include({ code: 'database_unavailable' });
  });

  it('leaves constraint violations, syntax errors and plain errors alone', () => {
    expect(transientDatabaseFailure(pgError('23505'))).to.equal(undefined);
    expect(transientDatabaseFailure(pgError('42601'))).to.equal(undefined);
    expect(transientDatabaseFailure(new Error('boom'))).to.equal(undefined);
    expect(transientDatabaseFailure(undefined)).to.equal(undefined);
    const unique = new UniqueIntegrityConstraintViolationError(Object.assign(pgError('23505'), { constraint: 'signatures_one_per_user' }) as never);
    expect(transientDatabaseFailure(unique)).to.equal(undefined);
  });
});
