// `npx rally users set-role`: promotes and demotes, takes effect on a running API at once, is
// audited as the CLI, and refuses an unknown email or role.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { runRallyCli, startApi, type RunningApi } from '../support/processes.ts';

describe('npx rally users set-role', function () {
  this.timeout(120_000);
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api?.stop());

  const metrics = (token: string) => fetch(`${api.baseUrl}/v1/admin/metrics`, { headers: bearer(token) }).then((response) => response.status);
  /** The change reaches the API through NOTIFY, within moments of the command's commit. */
  const statusSoon = async (token: string, expected: number) => {
    const deadline = Date.now() + 5_000;
    while ((await metrics(token)) !== expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return metrics(token);
  };

  it('makes a user an administrator and back, effective at once and audited', async () => {
    // Another administrator, so that demoting this one does not leave the platform without one.
    await createTestUser({ admin: true });
    const user = await createTestUser();
    const token = (await login(api.baseUrl, user)).accessToken;
    expect(await metrics(token)).to.equal(403);
    const promoted = JSON.parse((await runRallyCli(['users', 'set-role', '--email', user.email.toUpperCase(), '--role', 'admin'])).stdout);
    expect(promoted).to.include({ id: user.id, role: 'admin' });
    expect(await statusSoon(token, 200)).to.equal(200);
    expect(JSON.parse((await runRallyCli(['users', 'set-role', '--email', user.email, '--role', 'user'])).stdout).role).to.equal('user');
    expect(await statusSoon(token, 403)).to.equal(403);
    const audited = await testEnvironment().db.any(sql.type(
      z.object({ actor_type: z.string(), credential: z.string(), after: z.record(z.string(), z.unknown()) }),
    )`
      SELECT actor_type, credential, after FROM audit_logs WHERE action = 'user.role_changed' AND target_id = ${user.id} ORDER BY created_at
    `);
    expect(audited.map((row) => [row.actor_type, row.credential, row.after.role])).to.deep.equal([
      ['cli', 'cli', 'admin'],
      ['cli', 'cli', 'user'],
    ]);
  });

  it('exits 2 with a message for an unknown email or role', async () => {
    for (const args of [
      ['--email', 'nobody@example.test', '--role', 'admin'],
      ['--email', 'x@example.test', '--role', 'owner'],
    ]) {
      const failure = await runRallyCli(['users', 'set-role', ...args]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).to.equal(2);
      expect(failure?.stderr).to.match(/no user has the email|needs --email/);
    }
  });
});
