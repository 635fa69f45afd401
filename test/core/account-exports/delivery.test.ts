// Building an export's archive (core/account-exports/delivery.ts). The workflow starts inside the transaction that records
// the export, so its first attempt can run before that commit: it waits for the commit, builds a committed export and
// ends one whose request rolled back as gone, instead of finding no row and leaving the export "running" for ever.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { holdUntilCommit } from '../../../db/commit-barrier.ts';
import { sql } from '../../../db/sql.ts';
import { writeExportArchive } from '../../../core/account-exports/delivery.ts';
import { exportBarrier } from '../../../core/account-exports/exports.ts';
import { createLocalStorage } from '../../../platform/storage/local-storage.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';
import { waitingOnBarrier, whileUncommitted } from '../../support/uncommitted.ts';

describe('building an account export (core/account-exports/delivery.ts)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rally-export-delivery-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [end, built] of [
    ['commit', true],
    ['rollback', false],
  ] as const) {
    it(`waits for the request that recorded the export, then ${built ? 'builds it' : 'ends it as gone'} (${end})`, async () => {
      const storage = createLocalStorage({ dir, publicUrl: 'http://rally.test', signingKey: 'test signing key' });
      const user = await createTestUser();
      const exportId = randomUUID();
      let answer: boolean | undefined;
      let build: Promise<unknown> | undefined;
      await whileUncommitted(
        async (tx) => {
          await tx.query(sql.typeAlias('void')`INSERT INTO account_exports (id, user_id) VALUES (${exportId}, ${user.id})`);
          await holdUntilCommit(tx, exportBarrier(exportId));
        },
        async () => {
          build = writeExportArchive(testEnvironment().db, storage, exportId).then((result) => (answer = result));
          await waitingOnBarrier(() => answer !== undefined);
          expect(answer, 'answered before the request ended').to.equal(undefined);
        },
        end,
      );
      await build;
      expect(answer).to.equal(built);
      const stored = await storage.size(`exports/${exportId}.zip`);
      if (built) expect(stored).to.be.greaterThan(0);
      else expect(stored, 'no archive of a request that rolled back').to.equal(null);
    });
  }
});
