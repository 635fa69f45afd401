// Browser sessions in PostgreSQL (issue 26): only the cookie value's hash is stored; a session ends
// after its idle lifetime, after its absolute lifetime, at logout, for every session of a person at
// "log out everywhere", and for good at suspension; the CSRF token is per session and compared exactly.
import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import {
  csrfTokenMatches,
  csrfTokenOf,
  endBrowserSession,
  endBrowserSessionsOfUser,
  findBrowserSession,
  startBrowserSession,
} from '../../../core/browser-sessions/sessions.ts';
import { upsertUserFromClaims } from '../../../core/users/queries.ts';
import { testEnvironment } from '../../support/environment.ts';

const LIFETIMES = { idleTtlMs: 2 * 3_600_000, maxTtlMs: 30 * 86_400_000 };

describe('browser sessions (core/browser-sessions/sessions.ts)', () => {
  const db = () => testEnvironment().db;
  const person = async () => {
    const email = `s-${randomUUID().slice(0, 8)}@example.test`;
    return upsertUserFromClaims(db(), { issuer: 'https://sessions.test', subject: randomUUID(), email, displayName: 'Grace Hopper', emailVerified: true });
  };

  it('stores only the SHA-256 of the cookie value and finds the session by the value', async () => {
    const user = await person();
    const token = await startBrowserSession(db(), user.id, LIFETIMES);
    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    const stored = await db().manyFirst(sql.type(z.object({ token_hash: z.instanceof(Buffer) }))`
      SELECT token_hash FROM browser_sessions WHERE user_id = ${user.id}
    `);
    expect(stored[0]!.equals(createHash('sha256').update(token).digest())).to.equal(true);
    const found = await findBrowserSession(db(), token, LIFETIMES);
    expect(found?.user).to.deep.equal({ id: user.id, displayName: 'Grace Hopper', emailVerified: true, role: 'user' });
    expect(await findBrowserSession(db(), 'x'.repeat(43), LIFETIMES)).to.equal(undefined);
    expect(await findBrowserSession(db(), "'; DROP TABLE users; --", LIFETIMES)).to.equal(undefined);
  });

  it('ends a session unused for longer than the idle lifetime, and one past its absolute lifetime', async () => {
    const user = await person();
    const idle = await startBrowserSession(db(), user.id, LIFETIMES);
    await db().query(sql.typeAlias('void')`UPDATE browser_sessions SET last_seen_at = now() - interval '3 hours' WHERE user_id = ${user.id}`);
    expect(await findBrowserSession(db(), idle, LIFETIMES)).to.equal(undefined);
    // Ended for good: a later request within the idle window does not revive it.
    await db().query(sql.typeAlias('void')`UPDATE browser_sessions SET last_seen_at = now() WHERE user_id = ${user.id}`);
    expect(await findBrowserSession(db(), idle, LIFETIMES)).to.equal(undefined);

    const old = await startBrowserSession(db(), user.id, { idleTtlMs: LIFETIMES.idleTtlMs, maxTtlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await findBrowserSession(db(), old, LIFETIMES)).to.equal(undefined);
  });

  it('ends one session at logout and all of them at logout everywhere', async () => {
    const user = await person();
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => startBrowserSession(db(), user.id, LIFETIMES)));
    await endBrowserSession(db(), a!);
    expect(await findBrowserSession(db(), a!, LIFETIMES)).to.equal(undefined);
    expect(await findBrowserSession(db(), b!, LIFETIMES)).to.not.equal(undefined);
    expect(await endBrowserSessionsOfUser(db(), user.id)).to.equal(2);
    expect(await findBrowserSession(db(), b!, LIFETIMES)).to.equal(undefined);
    expect(await findBrowserSession(db(), c!, LIFETIMES)).to.equal(undefined);
  });

  it('ends the sessions of a suspended person for good', async () => {
    const user = await person();
    const token = await startBrowserSession(db(), user.id, LIFETIMES);
    await db().query(sql.typeAlias('void')`UPDATE users SET suspended_at = now() WHERE id = ${user.id}`);
    expect(await findBrowserSession(db(), token, LIFETIMES)).to.equal(undefined);
    await db().query(sql.typeAlias('void')`UPDATE users SET suspended_at = NULL WHERE id = ${user.id}`);
    expect(await findBrowserSession(db(), token, LIFETIMES)).to.equal(undefined);
  });

  it('prunes sessions ended or expired more than a day ago when a new one starts', async () => {
    const user = await person();
    const [ended, live] = await Promise.all([1, 2].map(() => startBrowserSession(db(), user.id, LIFETIMES)));
    await endBrowserSession(db(), ended!);
    await db().query(sql.typeAlias('void')`
      UPDATE browser_sessions SET ended_at = now() - interval '2 days' WHERE user_id = ${user.id} AND ended_at IS NOT NULL
    `);
    await startBrowserSession(db(), (await person()).id, LIFETIMES);
    const left = await db().oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM browser_sessions WHERE user_id = ${user.id}
    `);
    expect(left).to.equal(1);
    expect(await findBrowserSession(db(), live!, LIFETIMES)).to.not.equal(undefined);
  });

  it('derives a CSRF token per session and accepts only that exact token', () => {
    const key = Buffer.alloc(32, 7);
    const token = csrfTokenOf(key, 'session-one');
    expect(token).to.not.equal(csrfTokenOf(key, 'session-two'));
    expect(csrfTokenMatches(key, 'session-one', token)).to.equal(true);
    expect(csrfTokenMatches(key, 'session-two', token)).to.equal(false);
    expect(csrfTokenMatches(key, 'session-one', token.slice(1))).to.equal(false);
    expect(csrfTokenMatches(key, 'session-one', undefined)).to.equal(false);
    expect(csrfTokenMatches(key, 'session-one', [token])).to.equal(false);
  });
});
