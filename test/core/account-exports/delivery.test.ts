// Building an export's archive (core/account-exports/delivery.ts). The workflow is started inside the
// transaction that records the export, so its first attempt can run before that commit: it must then
// fail to be retried, not end the export as gone and leave it "running" for ever.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { writeExportArchive } from '../../../core/account-exports/delivery.ts';
import { DomainError } from '../../../core/errors/domain-error.ts';
import { createLocalStorage } from '../../../platform/storage/local-storage.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';

describe('building an account export (core/account-exports/delivery.ts)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rally-export-delivery-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('retries, rather than giving up, while the request that recorded the export has not committed', async () => {
    const storage = createLocalStorage({ dir, publicUrl: 'http://rally.test', signingKey: 'test signing key' });
    const user = await createTestUser();
    const exportId = randomUUID();
    const request = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    await request.connect();
    try {
      await request.query('BEGIN');
      await request.query('INSERT INTO account_exports (id, user_id) VALUES ($1, $2)', [exportId, user.id]);
      const early = await writeExportArchive(testEnvironment().db, storage, exportId).catch((error: unknown) => error);
      expect(early).to.be.instanceOf(DomainError);
      expect(early).to.include({ kind: 'unavailable', code: 'export_not_recorded' });
      await request.query('COMMIT');
    } finally {
      await request.end();
    }
    expect(await writeExportArchive(testEnvironment().db, storage, exportId)).to.equal(true);
    expect(await storage.size(`exports/${exportId}.zip`)).to.be.greaterThan(0);
  });
});
