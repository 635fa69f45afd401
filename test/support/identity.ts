// Users for tests, made the way `rally users create` makes them, and logged in through the API.
import { randomUUID } from 'node:crypto';
import { createIdentityAccount } from '../../identity-provider/accounts.ts';
import { upsertUserFromClaims } from '../../core/users/queries.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';
import { json } from './http.ts';
import { runRallyCli } from './processes.ts';

export type TestUser = { id: string; email: string; password: string; slug: string };
export type Session = { accessToken: string; refreshToken: string; idToken: string };

export async function createTestUser(options: { admin?: boolean; name?: string; email?: string } = {}): Promise<TestUser> {
  const { db, identityProviderPort } = testEnvironment();
  const email = options.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const password = `pw-${randomUUID()}`;
  const displayName = options.name ?? `Test ${email.slice(5, 13)}`;
  const subject = await createIdentityAccount(db, { email, password, displayName, emailVerified: true });
  const user = await upsertUserFromClaims(
    db,
    { issuer: `http://127.0.0.1:${identityProviderPort}`, subject, email, displayName, emailVerified: true },
    options.admin ? 'admin' : 'user',
  );
  return { id: user.id, email, password, slug: user.slug };
}

export async function login(baseUrl: string, user: Pick<TestUser, 'email' | 'password'>): Promise<Session> {
  const response = await fetch(`${baseUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  const body = await json(response);
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
  return { accessToken: body.data.access_token, refreshToken: body.data.refresh_token, idToken: body.data.token };
}

export async function createApiKey(baseUrl: string, accessToken: string, scope: 'read' | 'read_write' | 'full', name = `key-${scope}`) {
  const response = await fetch(`${baseUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ name, scopes: [scope] }),
  });
  const body = await json(response);
  if (response.status !== 201) throw new Error(`creating a key failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data as { id: string; key: string; prefix: string; scopes: string[] };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Many users with access tokens at once, through `rally loadtest users` (no password hashing). */
export async function createTokenUsers(count: number): Promise<{ id: string; access_token: string }[]> {
  const { stdout } = await runRallyCli(['loadtest', 'users', '--count', String(count)]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; access_token: string });
}

/**
 * Makes users established for reports (issue 24): email verified, and an account two days old, older
 * than RALLY_REPORT_MIN_ACCOUNT_AGE (24h by default, shorter in the report tests).
 */
export async function establishUsers(ids: readonly string[], ageMs = 2 * 86_400_000): Promise<void> {
  const { db } = testEnvironment();
  await db.query(sql.typeAlias('void')`
    UPDATE users SET email_verified = true, created_at = now() - make_interval(secs => ${ageMs / 1000}) WHERE id = ANY(${sql.array([...ids], 'uuid')})
  `);
}

/** `count` token users who count toward auto-hide (see establishUsers). */
export async function createEstablishedUsers(count: number): Promise<{ id: string; access_token: string }[]> {
  const users = await createTokenUsers(count);
  await establishUsers(users.map((user) => user.id));
  return users;
}
