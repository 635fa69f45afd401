// Group commit for guest signing forms (platform/group-commit.ts): the forms one API process receives together are stored by one statement
// (submitGuestSignatures) and one commit. A viral petition brings thousands of guests a second, all inserting under the same petition; one transaction per form
// would have each take that petition's row lock for its foreign key and pay its own commit.
import type { DatabasePool } from 'slonik';
import { createGroupCommit } from '../../platform/group-commit.ts';
import { signingBusy } from '../signatures/sign-batcher.ts';
import { submitGuestSignatures, type GuestFormSettings, type GuestSignatureForm, type SubmitOutcome } from './submit.ts';

export type GuestFormBatcher = {
  /** Stores the form with the next batch; resolves once that batch committed. */
  submit(form: GuestSignatureForm): Promise<SubmitOutcome>;
  /** Writes what is waiting, then resolves when every batch has finished. */
  stop(): Promise<void>;
};

export type GuestFormBatcherOptions = GuestFormSettings & { windowMs: number; maxSize: number };

export function createGuestFormBatcher(db: DatabasePool, options: GuestFormBatcherOptions): GuestFormBatcher {
  const batches = createGroupCommit<GuestSignatureForm, SubmitOutcome>({
    windowMs: options.windowMs,
    maxSize: options.maxSize,
    write: async (forms) => (await submitGuestSignatures(db, forms, options)).map((result) => ({ ok: true, result })),
    busy: signingBusy,
  });
  return { submit: (form) => batches.submit(form), stop: () => batches.stop() };
}
