// Revoked access tokens, checked on every request without a database round trip: each API process
// holds the unexpired revoked ids in memory, loaded at start and kept current by NOTIFY. A revoke
// writes the row and the NOTIFY in one transaction, so every process hears it at commit.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { NotificationListener } from '../../db/notifications.ts';

export const TOKEN_REVOKED_CHANNEL = 'rally_token_revoked';

const RevokedRow = z.object({ jti: z.string(), expires_at: z.string() });

export type RevocationList = {
  isRevoked(jti: string): boolean;
  revoke(jti: string, expiresAt: Date): Promise<void>;
  /** Several at once (a whole login's tokens), in one transaction. */
  revokeMany(tokens: ReadonlyArray<{ jti: string; expiresAt: Date }>): Promise<void>;
};

/**
 * Writes revoked token ids (or grant ids, core/oauth/grants.ts) and their NOTIFYs in the caller's
 * transaction, so every API process hears them at its commit: two statements however many there are
 * (deleting an app lists every grant it had).
 */
export async function listRevocations(tx: CommonQueryMethods, tokens: ReadonlyArray<{ jti: string; expiresAt: Date }>): Promise<void> {
  if (tokens.length === 0) return;
  const jtis = sql.array(
    tokens.map((token) => token.jti),
    'text',
  );
  const expiries = sql.array(
    tokens.map((token) => token.expiresAt.toISOString()),
    'timestamptz',
  );
  await tx.query(sql.typeAlias('void')`
    INSERT INTO revoked_access_tokens (jti, expires_at)
    SELECT jti, expires_at FROM unnest(${jtis}, ${expiries}) AS listed(jti, expires_at)
    ON CONFLICT (jti) DO NOTHING
  `);
  const payloads = sql.array(
    tokens.map(({ jti, expiresAt }) => `${jti} ${expiresAt.getTime()}`),
    'text',
  );
  await tx.query(sql.typeAlias('void')`SELECT FROM unnest(${payloads}) AS listed(payload) CROSS JOIN LATERAL pg_notify(${TOKEN_REVOKED_CHANNEL}, payload)`);
}

export async function createRevocationList(deps: { db: DatabasePool; notifications: NotificationListener }): Promise<RevocationList> {
  // jti → expiry in ms; entries past expiry are dropped lazily, as the token is dead anyway.
  const revoked = new Map<string, number>();

  async function reload() {
    const rows = await deps.db.any(sql.type(RevokedRow)`SELECT jti, expires_at FROM revoked_access_tokens WHERE expires_at > now()`);
    for (const row of rows) revoked.set(row.jti, Date.parse(row.expires_at));
  }

  await deps.notifications.listen(TOKEN_REVOKED_CHANNEL, (payload) => {
    const [jti, expiresAt] = payload.split(' ');
    if (jti && expiresAt) revoked.set(jti, Number(expiresAt));
  });
  // NOTIFYs sent while the listener was disconnected are lost, so the list is read again; the pool may
  // still fail then (PostgreSQL restarting, PgBouncer waiting before its next login), and a revocation
  // must not be missed: it retries until a read succeeds, and a failure never escapes the process.
  let reloading: Promise<void> | undefined;
  const reloadUntilDone = async () => {
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 10_000)) {
      const done = await reload().then(
        () => true,
        () => false,
      );
      if (done) return;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };
  deps.notifications.onReconnect(() => {
    reloading ??= reloadUntilDone().finally(() => {
      reloading = undefined;
    });
  });
  await reload();

  async function revokeMany(tokens: ReadonlyArray<{ jti: string; expiresAt: Date }>) {
    if (tokens.length === 0) return;
    for (const { jti, expiresAt } of tokens) revoked.set(jti, expiresAt.getTime());
    await deps.db.transaction((tx) => listRevocations(tx, tokens));
  }

  return {
    isRevoked(jti) {
      const expiresAt = revoked.get(jti);
      if (expiresAt === undefined) return false;
      if (expiresAt < Date.now()) revoked.delete(jti);
      return true;
    },
    async revoke(jti, expiresAt) {
      await revokeMany([{ jti, expiresAt }]);
    },
    revokeMany,
  };
}
