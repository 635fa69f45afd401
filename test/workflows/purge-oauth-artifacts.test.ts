import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { purgeOAuthArtifacts } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createTestUser } from '../support/identity.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('workflow purgeOAuthArtifacts', function () {
  this.timeout(60_000);

  it('deletes expired codes, refresh tokens and access-token ids, and keeps live ones', async () => {
    const { db, temporal } = testEnvironment();
    const user = await createTestUser();
    const clientId = `app_purge_${randomBytes(4).toString('hex')}`;
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_clients (client_id, name, redirect_uris, scopes, confidential) VALUES (${clientId}, 'Purge',
      ARRAY['https://p.example/cb'], ARRAY['read:profile'], false)
    `);
    const familyId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO oauth_token_families (client_id, user_id, scopes) VALUES (${clientId}, ${user.id}, ARRAY['read:profile']) RETURNING id
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_refresh_tokens (token_hash, family_id, expires_at) VALUES
        (${sql.binary(randomBytes(32))}, ${familyId}, now() - interval '1 minute'), (${sql.binary(randomBytes(32))}, ${familyId}, now() + interval '1 day')
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_access_tokens (jti, family_id, expires_at) VALUES (${`expired-${familyId}`}, ${familyId},
      now() - interval '1 minute'), (${`live-${familyId}`}, ${familyId}, now() + interval '1 hour')
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_authorization_codes (code_hash, ticket_id, client_id, user_id, redirect_uri, scopes, expires_at)
      VALUES (${sql.binary(randomBytes(32))}, ${`old-${familyId}`}, ${clientId}, ${user.id}, 'https://p.example/cb',
      ARRAY['read:profile'], now() - interval '2 days')
    `);

    const taskQueue = uniqueTaskQueue('purge-oauth');
    const worker = await createTestWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(purgeOAuthArtifacts, { taskQueue, workflowId: `purge-oauth-artifacts-test-${taskQueue}` });
      const outcome = await handle.result();
      await captureHistory('purge-oauth-artifacts', handle);
      return outcome;
    });
    expect(result.deleted).to.be.at.least(3);
    const count = (table: 'oauth_refresh_tokens' | 'oauth_access_tokens') =>
      db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE family_id = ${familyId}`);
    expect(await count('oauth_refresh_tokens')).to.equal(1);
    expect(await count('oauth_access_tokens')).to.equal(1);
    const codes = await db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM oauth_authorization_codes WHERE client_id = ${clientId}`,
    );
    expect(codes).to.equal(0);
  });
});
