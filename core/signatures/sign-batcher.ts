// Group commit for signatures (platform/group-commit.ts): concurrent sign requests of one API process
// are written together by signBatch (core/signatures/sign.ts), one statement for up to `maxSize` of
// them. A full queue refuses at once with 503 signing_busy and Retry-After.
import type { DatabasePool } from 'slonik';
import { Unavailable } from '../errors/domain-error.ts';
import { createGroupCommit } from '../../platform/group-commit.ts';
import { silentLogger, type Logger } from '../../platform/logger.ts';
import { signBatch, type SignRequest, type SignResult } from './sign.ts';
import { createPetitionFactsCache } from './petition-facts.ts';

export type SignBatcherOptions = { windowMs: number; maxSize: number; maxInFlight?: number; maxQueued?: number; log?: Logger };

export type SignBatcher = {
  /** Signs as part of the next batch; resolves once that batch committed, or rejects with this request's own error. */
  sign(request: SignRequest): Promise<SignResult>;
  /** Writes what is waiting, then resolves when every batch has finished. */
  stop(): Promise<void>;
};

/** A full queue's answer, for signatures and guest forms alike: 503 signing_busy with Retry-After. */
export const signingBusy = () => new Unavailable('Signing is very busy right now; try again in a moment.', { code: 'signing_busy', retryAfterSeconds: 1 });

export function createSignBatcher(db: DatabasePool, options: SignBatcherOptions): SignBatcher {
  const { log = silentLogger, ...sizes } = options;
  const facts = createPetitionFactsCache();
  const batches = createGroupCommit<SignRequest, SignResult>({
    ...sizes,
    write: (requests) => signBatch(db, requests, log, facts),
    busy: signingBusy,
  });
  return { sign: (request) => batches.submit(request), stop: () => batches.stop() };
}
