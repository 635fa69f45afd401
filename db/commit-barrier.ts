// A workflow started inside the transaction that records its subject can run its first activity before that commit and find
// nothing. The transaction holds the subject's barrier until it ends (holdUntilCommit); the activity passes the barrier first
// (afterCommitOf), so it reads once the commit (or rollback) has happened. Used by exports, decision-maker and organization invitations.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { sql } from './sql.ts';

// A transaction-scoped advisory lock per subject, keyed by a 64-bit hash of its name: two subjects whose hashes collide only
// wait for each other's commit, which is harmless.
const barrierKey = (subject: string) => sql.fragment`hashtextextended(${subject}, 0)`;

/** Holds the subject's barrier until `tx` ends; take it before starting the workflow that reads the subject. */
export async function holdUntilCommit(tx: CommonQueryMethods, subject: string): Promise<void> {
  await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${barrierKey(subject)})`);
}

/** Resolves once no open transaction holds the subject's barrier: at once when none does. */
export async function afterCommitOf(db: DatabasePool, subject: string): Promise<void> {
  await db.transaction((tx) => tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock_shared(${barrierKey(subject)})`));
}
