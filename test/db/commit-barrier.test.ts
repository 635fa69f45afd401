// The commit barrier (db/commit-barrier.ts): a workflow's first read waits for the transaction that recorded its subject
// and started it, whether that transaction commits or rolls back, and does not wait when none holds the barrier.
import { expect } from 'chai';
import { afterCommitOf, holdUntilCommit } from '../../db/commit-barrier.ts';
import { testEnvironment } from '../support/environment.ts';
import { waitingOnBarrier, whileUncommitted } from '../support/uncommitted.ts';

describe('the commit barrier (db/commit-barrier.ts)', () => {
  for (const end of ['commit', 'rollback'] as const) {
    it(`holds a reader until the transaction holding the subject's barrier ends (${end})`, async () => {
      let passed = false;
      let reader: Promise<void> | undefined;
      await whileUncommitted(
        (tx) => holdUntilCommit(tx, `barrier-test-${end}`),
        async () => {
          reader = afterCommitOf(testEnvironment().db, `barrier-test-${end}`).then(() => void (passed = true));
          await waitingOnBarrier(() => passed);
          expect(passed, 'passed before the transaction ended').to.equal(false);
        },
        end,
      );
      await reader;
      expect(passed).to.equal(true);
    });
  }

  it('lets a reader through at once when no transaction holds the barrier, and another subject is not held', async () => {
    await whileUncommitted(
      (tx) => holdUntilCommit(tx, 'barrier-test-held'),
      async () => {
        await afterCommitOf(testEnvironment().db, 'barrier-test-free');
      },
      'commit',
    );
    await afterCommitOf(testEnvironment().db, 'barrier-test-held');
  });
});
