// The embedded provider's accounts (what `rally users create` calls), against the real database.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { createIdentityAccount, findIdentityAccount, IdentityAccountError, verifyIdentityPassword } from '../../identity-provider/accounts.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';

describe('embedded identity provider: accounts', function () {
  this.timeout(30_000);
  const email = `Katherine.${randomBytes(4).toString('hex')}@Example.org`;
  const password = 'orbital mechanics';
  let accountId: string;

  before(async () => {
    accountId = await createIdentityAccount(testEnvironment().db, { email: ` ${email} `, password, displayName: 'Katherine Johnson' });
  });

  it('stores an argon2id hash, never the password, and the address as written', async () => {
    const row = await testEnvironment().db.one(sql.type(z.object({ email: z.string(), password_hash: z.string() }))`
      SELECT email, password_hash FROM identity_accounts WHERE id = ${accountId}
    `);
    expect(row.email).to.equal(email);
    expect(row.password_hash)
      .to.match(/^\$argon2id\$/)
      .and.not.include(password);
    expect(await findIdentityAccount(testEnvironment().db, accountId)).to.deep.equal({
      id: accountId,
      email,
      emailVerified: false,
      displayName: 'Katherine Johnson',
    });
  });

  it('checks passwords by e-mail whatever its case', async () => {
    const db = testEnvironment().db;
    expect(await verifyIdentityPassword(db, email.toLowerCase(), password)).to.equal(accountId);
    expect(await verifyIdentityPassword(db, email, 'orbital mechanic')).to.equal(undefined);
    expect(await verifyIdentityPassword(db, `x${email}`, password)).to.equal(undefined);
    expect(await findIdentityAccount(db, 'not-a-uuid')).to.equal(undefined);
  });

  it('refuses a second account for the same address in another case', async () => {
    const attempt = createIdentityAccount(testEnvironment().db, { email: email.toUpperCase(), password });
    await attempt.then(
      () => expect.fail('a duplicate account was created'),
      (error: unknown) => expect(error).to.be.instanceOf(IdentityAccountError).with.property('message').that.includes('already exists'),
    );
  });

  it('refuses a malformed address and a short password', async () => {
    for (const input of [
      { email: 'no-at-sign', password },
      { email: `short.${randomBytes(4).toString('hex')}@example.org`, password: 'short' },
    ]) {
      const error = await createIdentityAccount(testEnvironment().db, input).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(IdentityAccountError);
    }
  });
});
