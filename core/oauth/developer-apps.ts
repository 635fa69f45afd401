// The apps a developer registers and manages themselves (/v1/oauth/apps), beside the operator's CLI. They are never owned: client_credentials gives them
// app-only tokens, so registering an app grants it nothing on the developer's own account. The developer needs a verified email address (the consent screen
// names it as the app's owner: issue 42).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Conflict, Forbidden, LimitReached, NotFound, ensure } from '../errors/domain-error.ts';
import { checkDeveloperAppName } from './app-identity.ts';
import { keysetPage, type KeyColumn } from '../pagination/keyset.ts';
import {
  CLIENT_COLUMNS,
  checkName,
  checkRedirectUris,
  createClient,
  deleteClient,
  hashClientSecret,
  newClientSecret,
  OAuthClientRow,
  parseScopes,
  type OAuthClient,
} from './clients.ts';

export const MAX_APPS_PER_USER = 10;

/** The workflow that ends a rotated secret's grace window (started by orchestration/, once per rotation). */
export type ClientSecretRotationWorkflows = { startClientSecretRotation(clientId: string, rotatedAtMs: number, gracePeriodMs: number): Promise<void> };
export type DeveloperAppDependencies = { db: DatabasePool; workflows: ClientSecretRotationWorkflows; gracePeriodMs: number };

export type NewDeveloperApp = { name: string; redirectUris: string[]; scopes?: string; confidential: boolean };
export type DeveloperAppChange = { name?: string; redirectUris?: string[]; scopes?: string };

export function registerDeveloperApp(db: DatabasePool, userId: string, input: NewDeveloperApp): Promise<{ client: OAuthClient; secret?: string }> {
  return db.transaction(async (tx) => {
    checkDeveloperAppName(input.name);
    // The developer's row serialises concurrent registrations, so the cap holds.
    const verified = await tx.maybeOneFirst(sql.type(z.object({ email_verified: z.boolean() }))`
      SELECT email_verified FROM users WHERE id = ${userId} FOR UPDATE
    `);
    ensure(verified === true, Forbidden, 'Verify your email address before registering an app: the consent screen names you as its owner.', {
      code: 'email_unverified',
    });
    const count = await tx.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM oauth_clients WHERE registered_by = ${userId}
    `);
    if (count >= MAX_APPS_PER_USER) throw new LimitReached(`You have ${MAX_APPS_PER_USER} apps, the most one account may register; delete one first.`);
    return createClient(tx, { ...input, registeredBy: userId });
  });
}

const APP_ORDER: KeyColumn[] = [
  [sql.fragment`created_at`, 'timestamptz'],
  [sql.fragment`client_id`, 'text'],
];

/** Newest first; `after` is the (created_at, client_id) of the previous page's last app. */
export function listDeveloperApps(db: CommonQueryMethods, userId: string, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(APP_ORDER, after, 'desc', limit);
  return db.any(sql.type(OAuthClientRow)`
    SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE registered_by = ${userId} AND ${keyset.where} ${keyset.orderAndLimit}
  `);
}

export async function findDeveloperApp(db: CommonQueryMethods, userId: string, clientId: string): Promise<OAuthClient> {
  const app = await db.maybeOne(
    sql.type(OAuthClientRow)`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE client_id = ${clientId} AND registered_by = ${userId}`,
  );
  ensure(app, NotFound, `You registered no app ${clientId}.`);
  return app;
}

/** Scopes narrowed here bind new grants; tokens already issued keep theirs until they expire or are revoked. */
export async function updateDeveloperApp(db: CommonQueryMethods, userId: string, clientId: string, change: DeveloperAppChange): Promise<OAuthClient> {
  if (change.name !== undefined) {
    checkName(change.name);
    checkDeveloperAppName(change.name);
  }
  const redirectUris = change.redirectUris === undefined ? undefined : checkRedirectUris(change.redirectUris);
  const scopes = change.scopes === undefined ? undefined : parseScopes(change.scopes);
  const updated = await db.maybeOne(sql.type(OAuthClientRow)`
    UPDATE oauth_clients SET
      name = COALESCE(${change.name?.trim() ?? null}, name),
      redirect_uris = COALESCE(${redirectUris ? sql.array(redirectUris, 'text') : null}, redirect_uris),
      scopes = COALESCE(${scopes && scopes.length > 0 ? sql.array(scopes, 'text') : null}, scopes)
    WHERE client_id = ${clientId} AND registered_by = ${userId}
    RETURNING ${CLIENT_COLUMNS}
  `);
  ensure(updated, NotFound, `You registered no app ${clientId}.`);
  return updated;
}

export async function deleteDeveloperApp(db: DatabasePool, userId: string, clientId: string, accessTokenTtlMs: number): Promise<void> {
  await findDeveloperApp(db, userId, clientId);
  await deleteClient(db, clientId, accessTokenTtlMs);
}

/**
 * A new secret, shown once; the current one becomes the previous one for the grace period.
 * The old secret stays valid for the grace period; a workflow then erases its hash (the expiry alone already
 * ends it: the workflow only leaves nothing behind).
 */
export async function rotateClientSecret(deps: DeveloperAppDependencies, userId: string, clientId: string) {
  return deps.db.transaction(async (tx) => {
    const app = await findDeveloperApp(tx, userId, clientId);
    ensure(app.confidential, Conflict, 'A public app has no secret to rotate.', { code: 'public_client' });
    const secret = newClientSecret();
    const rotated = await tx.one(sql.type(OAuthClientRow.extend({ rotated_ms: z.number() }))`
      UPDATE oauth_clients SET
        previous_secret_hash = secret_hash,
        previous_secret_expires_at = now() + ${`${Math.round(deps.gracePeriodMs)} milliseconds`}::interval,
        secret_hash = ${sql.binary(hashClientSecret(secret))}
      WHERE client_id = ${clientId}
      RETURNING ${CLIENT_COLUMNS}, (extract(epoch FROM now()) * 1000)::int8 AS rotated_ms
    `);
    // Started last inside the transaction: a failed start (503) rolls the rotation back.
    await deps.workflows.startClientSecretRotation(clientId, rotated.rotated_ms, deps.gracePeriodMs);
    return { client: rotated, secret };
  });
}

/** Erases a rotated-out secret whose grace window is over; a later rotation's window is left alone. Safe to repeat. */
export async function endClientSecretGrace(db: CommonQueryMethods, clientId: string): Promise<boolean> {
  const cleared = await db.maybeOne(sql.type(z.object({ client_id: z.string() }))`
    UPDATE oauth_clients SET previous_secret_hash = NULL, previous_secret_expires_at = NULL
    WHERE client_id = ${clientId} AND previous_secret_expires_at <= now()
    RETURNING client_id
  `);
  return cleared !== null;
}
