// Exports of a person's own data (issue 46): starting one (one running per person, EXPORTS_PER_DAY a
// day), listing them, and the once-only download link. The accountExport workflow (started through
// the AccountExportWorkflows port, inside the transaction that records the export) builds the archive.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { holdUntilCommit } from '../../db/commit-barrier.ts';
import { sql } from '../../db/sql.ts';
import { deletionRequested } from '../account-deletion/request.ts';
import { Conflict, Gone, NotFound, RateLimited, ensure } from '../errors/domain-error.ts';

export const EXPORTS_PER_DAY = 3;
const DAY_MS = 24 * 60 * 60_000;

/** The commit barrier (db/commit-barrier.ts) between recording an export and building it. */
export const exportBarrier = (exportId: string) => `account-export:${exportId}`;

export type AccountExportWorkflows = { startAccountExport(exportId: string, userId: string, linkTtlMs: number): Promise<void> };
export type ExportDependencies = { db: DatabasePool; workflows: AccountExportWorkflows; linkTtlMs: number };

export const AccountExportRow = z.object({
  id: z.string(),
  status: z.enum(['running', 'ready', 'failed']),
  size_bytes: z.number().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  link_expires_at: z.string().nullable(),
  downloaded_at: z.string().nullable(),
});
export type AccountExportRow = z.infer<typeof AccountExportRow>;
const COLUMNS = sql.fragment`id, status, size_bytes, created_at, completed_at, link_expires_at, downloaded_at`;

export const exportStorageKey = (exportId: string) => `exports/${exportId}.zip`;
export const exportDownloadUrl = (publicUrl: string, exportId: string, token: string) => `${publicUrl}/v1/account-exports/${exportId}/download?token=${token}`;
const hashToken = (raw: string) => createHash('sha256').update(raw, 'utf8').digest();

/**
 * Records a running export and starts its workflow, in one transaction. A second while one runs
 * breaks account_exports_one_running (409 export_running); the person's row is locked so that two
 * requests at once cannot both pass the daily count, and an export cannot start beside the account's
 * deletion (409 account_deletion_running), which takes the same lock.
 */
export async function startAccountExport(deps: ExportDependencies, userId: string): Promise<AccountExportRow> {
  return deps.db.transaction(async (tx) => {
    await tx.query(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
    ensure(!(await deletionRequested(tx, userId)), Conflict, 'This account is being deleted; there is nothing left to export.', {
      code: 'account_deletion_running',
    });
    const oldest = await tx.maybeOneFirst(sql.type(z.object({ retry_after: z.number() }))`
      SELECT ceil(extract(epoch FROM min(created_at) + make_interval(secs => ${DAY_MS / 1000}) - now()))::int AS retry_after
      FROM (SELECT created_at FROM account_exports WHERE user_id = ${userId} AND created_at > now() - make_interval(secs => ${DAY_MS / 1000})
            ORDER BY created_at DESC LIMIT ${EXPORTS_PER_DAY}) recent
      HAVING count(*) >= ${EXPORTS_PER_DAY}`);
    ensure(oldest === null, RateLimited, `At most ${EXPORTS_PER_DAY} exports in 24 hours; try again later.`, {
      code: 'export_limit_reached',
      retryAfterSeconds: oldest ?? 1,
    });
    const row = await tx.one(sql.type(AccountExportRow)`
      INSERT INTO account_exports (id, user_id) VALUES (${randomUUID()}, ${userId}) RETURNING ${COLUMNS}`);
    await holdUntilCommit(tx, exportBarrier(row.id));
    await deps.workflows.startAccountExport(row.id, userId, deps.linkTtlMs);
    return row;
  });
}

/** The person's exports, newest first (at most a few a day, so one page of the last 50). */
export function listAccountExports(db: CommonQueryMethods, userId: string): Promise<readonly AccountExportRow[]> {
  return db.any(sql.type(AccountExportRow)`
    SELECT ${COLUMNS} FROM account_exports WHERE user_id = ${userId} ORDER BY created_at DESC, id DESC LIMIT 50`);
}

const Claim = z.object({ token_hash: z.instanceof(Buffer).nullable() });

/**
 * Spends a download link: the token is compared with the stored hash in constant time, then the
 * link is marked used in the same statement that checks it is unused and unexpired, so two clicks at
 * once get one archive. Unknown export or wrong token: 404; used or expired: 410.
 */
export async function claimExportDownload(db: DatabasePool, exportId: string, token: string): Promise<string> {
  const notFound = 'There is no export at this link.';
  const row = await db.maybeOne(sql.type(Claim)`
    SELECT token_hash FROM account_exports WHERE id = ${exportId}`);
  const presented = hashToken(token);
  ensure(row?.token_hash && row.token_hash.length === presented.length && timingSafeEqual(row.token_hash, presented), NotFound, notFound);
  const claimed = await db.maybeOneFirst(sql.type(z.object({ storage_key: z.string() }))`
    UPDATE account_exports SET downloaded_at = now()
    WHERE id = ${exportId} AND status = 'ready' AND downloaded_at IS NULL AND link_expires_at > now() AND storage_key IS NOT NULL
    RETURNING storage_key`);
  ensure(claimed, Gone, 'This download link was already used or has expired; ask for a new export.', { code: 'export_link_used' });
  return claimed;
}

/** A fresh link token: the raw value goes into the email only; the row keeps its SHA-256. */
export function newExportToken(): { raw: string; hash: Buffer } {
  const raw = randomBytes(32).toString('base64url');
  return { raw, hash: hashToken(raw) };
}
