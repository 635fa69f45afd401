// Signing, built to hold a viral spike: concurrent sign requests are written together (group commit, sign-batcher.ts) with one read of the petitions, checked
// per request with the petition policy, then ONE statement (sign-statement.ts) that inserts, counts, claims milestones and writes the outbox events. Each
// request still gets its own answer: its own count, its own milestone_reached, its own 409.
import type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { canRead, knowsOf, type PetitionAccessFacts } from '../petitions/policy.ts';
import { prepared, sql } from '../../db/sql.ts';
import { PETITION_STATUSES, PETITION_VISIBILITIES } from '../vocabulary.ts';
import { Conflict, DomainError, Forbidden, NotFound } from '../errors/domain-error.ts';
import { signBatchStatement, type BatchOutcome, type BatchPetition } from './sign-statement.ts';
import type { RememberAnswer } from '../idempotency/remembered-answers.ts';
import type { Logger } from '../../platform/logger.ts';
import { catchUpMilestones } from './milestone-catch-up.ts';
import { readPetitionFacts, type PetitionFactsCache } from './petition-facts.ts';
import type { SignatureInput } from './signature-input.ts';

export { COUNTER_SHARDS } from './sign-statement.ts';
export { petitionFactsStatement } from './petition-facts.ts';

export type SignResult = {
  id: string;
  petition_id: string;
  user_id: string;
  is_anonymous: boolean;
  signature_count: number;
  milestone_reached: boolean;
  created_at: string;
};

/** A request's own answer: its signature, or the domain error it is refused with. */
export type SignAnswer = { ok: true; result: SignResult } | { ok: false; error: DomainError };

/**
 * One sign request in a batch. `withinWrite`, when given, runs inside the batch's transaction after
 * the signatures are written and before they commit, with this request's own answer: the seam for
 * work that must commit or roll back with the signature (such as storing the idempotent answer).
 * Throwing there rolls the batch back; the batch is then retried one request at a time, so only the
 * request that threw fails.
 */
export type SignRequest = {
  input: SignatureInput;
  withinWrite?: (tx: DatabaseTransactionConnection, answer: SignAnswer) => Promise<void>;
  /** Like withinWrite, for work one statement can do for many requests: see SharedWork. */
  shared?: { work: SharedWork; key: string };
};

/**
 * Work that must commit with the signatures, done once per batch for every request that names it
 * (the same function), each with its key and answer: one statement where withinWrite would make one
 * per request. Throwing rolls the batch back, as withinWrite does.
 */
export type SharedWork = (tx: DatabaseTransactionConnection, requests: readonly { key: string; answer: SignAnswer }[]) => Promise<void>;

/**
 * The seam's use by the API: with an Idempotency-Key, the request's 201 commits with its signature, so
 * a retry after a connection reset (the API died between commit and answer) replays it.
 */
export function rememberedWithSignature(remember: RememberAnswer | undefined): SignRequest['withinWrite'] {
  if (!remember) return undefined;
  return async (tx, answer) => {
    if (!answer.ok) return;
    const { created_at: _createdAt, ...data } = answer.result;
    await tx.query(sql.typeAlias('void')`${remember(sql.fragment`${sql.jsonb(data)}`)}`);
  };
}

/** The petition policy's verdict on one request, before anything is written. */
function refusal(petition: (PetitionAccessFacts & { status: string }) | undefined, input: SignatureInput): DomainError | null {
  if (!petition || !knowsOf(input.viewer, petition)) return new NotFound('There is no such petition.');
  if (!canRead(input.viewer, petition, input.accessCode)) {
    return new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
  return petition.status === 'active' ? null : notActive(petition.status);
}

const notActive = (status: string) => new Conflict(`Only active petitions take signatures; this one is ${status}.`, { code: 'petition_not_active' });
const alreadySigned = () => new Conflict('You have already signed this petition.', { code: 'already_signed' });
// Who may sign: only an account whose email address is verified. One that merely claims an address (a
// provider that lets people log in before verifying) does not own it; the statement writes no row for it.
const emailUnverified = () =>
  new Forbidden('Verify your email address before signing: open the link you were emailed, then log in again.', { code: 'email_unverified' });

function answerFor(outcome: BatchOutcome, input: SignatureInput): SignAnswer {
  if (outcome.signature_id && outcome.created_at && outcome.signature_count !== null) {
    return {
      ok: true,
      result: {
        id: outcome.signature_id,
        petition_id: input.petitionId,
        user_id: input.userId,
        is_anonymous: input.isAnonymous,
        signature_count: outcome.signature_count,
        milestone_reached: outcome.milestone_reached,
        created_at: outcome.created_at,
      },
    };
  }
  // Not verified; signed before; or closed (or deleted) between the policy read and the write.
  if (outcome.petition_status === 'active') return { ok: false, error: outcome.signer_verified ? alreadySigned() : emailUnverified() };
  return { ok: false, error: outcome.petition_status ? notActive(outcome.petition_status) : new NotFound('There is no such petition.') };
}

/**
 * Signs every request of a batch in one statement and returns each request's answer, in order.
 * Throws only when the write itself failed (the caller then retries the requests one by one).
 * What the single-request design guaranteed still holds: a request is answered only after the statement (or its
 * transaction) committed, so no acknowledged signature is lost; the unique index refuses a second signature of
 * the same person, also when both are in one batch; the count is the sum of the shards, each bumped by exactly
 * the rows inserted; the primary key of petition_milestones lets exactly one signature claim each milestone,
 * and the catch-up after each commit (milestone-catch-up.ts) claims those that concurrent batches passed
 * without seeing.
 */
export async function signBatch(db: DatabasePool, requests: readonly SignRequest[], log: Logger, facts?: PetitionFactsCache): Promise<SignAnswer[]> {
  const petitions = await readPetitionFacts(db, [...new Set(requests.map((request) => request.input.petitionId))], facts, (petition) =>
    requests.some(({ input }) => input.petitionId === petition.id && refusal(petition, input) !== null),
  );
  const answers: (SignAnswer | undefined)[] = requests.map(({ input }) => {
    const refused = refusal(petitions.get(input.petitionId), input);
    return refused ? { ok: false, error: refused } : undefined;
  });
  // The first request of a person for a petition goes to the statement; a second one in the same
  // batch is refused like any duplicate, once the first is decided.
  const writing = new Map<string, number>();
  requests.forEach(({ input }, index) => {
    const key = `${input.petitionId}/${input.userId}`;
    if (!answers[index] && !writing.has(key)) writing.set(key, index);
  });
  const toWrite = [...writing.values()];
  const involved = [...new Set(toWrite.map((index) => requests[index]!.input.petitionId))].map((id): BatchPetition => ({
    id,
    goal: petitions.get(id)!.signature_goal,
  }));
  const statement = signBatchStatement(
    toWrite.map((index) => requests[index]!.input),
    involved,
  );

  const decide = (rows: readonly BatchOutcome[]) => {
    toWrite.forEach((requestIndex, row) => {
      answers[requestIndex] = answerFor(rows[row]!, requests[requestIndex]!.input);
    });
    requests.forEach(({ input }, index) => {
      const first = answers[writing.get(`${input.petitionId}/${input.userId}`)!]!;
      answers[index] ??= first.ok ? { ok: false, error: alreadySigned() } : first;
    });
    return answers as SignAnswer[];
  };

  // One connection for the write and its catch-up, which must come after the commit, as a new statement.
  return db.connect(async (connection) => {
    const write = async (on: CommonQueryMethods) => decide(toWrite.length > 0 ? await on.any(statement) : []);
    const decided = requests.some((request) => request.withinWrite || request.shared)
      ? await connection.transaction(async (tx) => {
          const inTransaction = await write(tx);
          for (const [index, request] of requests.entries()) await request.withinWrite?.(tx, inTransaction[index]!);
          await runSharedWork(tx, requests, inTransaction);
          return inTransaction;
        })
      : await write(connection);
    return caughtUp(connection, decided, petitions, log);
  });
}

async function runSharedWork(tx: DatabaseTransactionConnection, requests: readonly SignRequest[], answers: readonly SignAnswer[]): Promise<void> {
  const byWork = new Map<SharedWork, { key: string; answer: SignAnswer }[]>();
  requests.forEach(({ shared }, index) => {
    if (shared) byWork.set(shared.work, [...(byWork.get(shared.work) ?? []), { key: shared.key, answer: answers[index]! }]);
  });
  for (const [work, items] of byWork) await work(tx, items);
}

/**
 * The answers after the batch's catch-up (milestone-catch-up.ts): a request whose signature claimed a
 * milestone there says so, with the count that reached it. The signatures are committed: a failed
 * catch-up must not fail them (the batcher would write them again), so it leaves the answers as they are.
 */
async function caughtUp(
  connection: CommonQueryMethods,
  answers: SignAnswer[],
  petitions: ReadonlyMap<string, { signature_goal: number | null }>,
  log: Logger,
): Promise<SignAnswer[]> {
  const highest = new Map<string, SignResult>();
  for (const answer of answers) {
    if (answer.ok && answer.result.signature_count > (highest.get(answer.result.petition_id)?.signature_count ?? 0))
      highest.set(answer.result.petition_id, answer.result);
  }
  const claims = await catchUpMilestones(
    connection,
    [...highest.values()].map((result) => ({
      id: result.petition_id,
      goal: petitions.get(result.petition_id)?.signature_goal ?? null,
      highest: result.signature_count,
      signatureId: result.id,
    })),
  ).catch((error: Error) => {
    log.warn('milestone catch-up after a signing batch failed', { error: error.message });
    return [];
  });
  return answers.map((answer) => {
    if (!answer.ok) return answer;
    const won = claims.filter((claim) => claim.signature_id === answer.result.id);
    if (won.length === 0) return answer;
    const count = Math.max(answer.result.signature_count, ...won.map((claim) => claim.signature_count));
    return { ok: true, result: { ...answer.result, milestone_reached: true, signature_count: count } };
  });
}
