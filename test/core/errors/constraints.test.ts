// The constraint table maps a violation to a domain error by the constraint's name. A name the
// schema does not have (a typo, a constraint renamed by a migration) would never match, and that
// violation would answer 500: every name must be a constraint or a unique index of the migrated schema.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { MAPPED_CONSTRAINTS } from '../../../core/errors/constraints.ts';
import { testEnvironment } from '../../support/environment.ts';

describe('the constraint table (core/errors/constraints.ts)', () => {
  it('names only constraints and unique indexes the schema has', async () => {
    const known = new Set(
      await testEnvironment().db.anyFirst(sql.type(z.object({ name: z.string() }))`
      SELECT c.conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
      UNION
      SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique
    `),
    );
    expect(MAPPED_CONSTRAINTS).to.not.be.empty;
    expect(MAPPED_CONSTRAINTS.filter((name) => !known.has(name))).to.deep.equal([]);
  });
});
