// Group commit for confirmation links (platform/group-commit.ts): the clicks one API process receives together are looked up by one statement and their signers
// found or created by one more (confirmGuestSignatures), then signed together through the signature batcher. A viral petition's guests confirm by the thousand
// a second; two statements per click before its signature's batch made each confirmation cost about twice an API signature.
import type { DatabasePool } from 'slonik';
import { createGroupCommit } from '../../platform/group-commit.ts';
import type { SignBatcher } from '../signatures/sign-batcher.ts';
import { signingBusy } from '../signatures/sign-batcher.ts';
import { confirmGuestSignatures, type ConfirmOutcome, type ConfirmRequest } from './confirm.ts';

export type ConfirmBatcher = {
  /** Confirms the link with the next batch; resolves with its outcome once its signature (if any) committed. */
  confirm(request: ConfirmRequest): Promise<ConfirmOutcome>;
  /** Confirms what is waiting, then resolves when every batch has finished (before the signature batcher stops). */
  stop(): Promise<void>;
};

export type ConfirmBatcherOptions = { windowMs: number; maxSize: number };

export function createConfirmBatcher(db: DatabasePool, signatures: SignBatcher, options: ConfirmBatcherOptions): ConfirmBatcher {
  const batches = createGroupCommit<ConfirmRequest, ConfirmOutcome>({
    windowMs: options.windowMs,
    maxSize: options.maxSize,
    write: (requests) => confirmGuestSignatures({ db, signatures }, requests),
    busy: signingBusy,
  });
  return { confirm: (request) => batches.submit(request), stop: () => batches.stop() };
}
