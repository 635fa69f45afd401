// Around an account's deletion (issue 46): exporting while it runs answers 409 account_deletion_running, and once it completes a confirmation goes to the
// address on file, which the workflow's history never holds in the clear. The worker starts only after the export is refused, so the deletion is still running
// then, whatever the machine's speed.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { accountDeletionWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('account deletion: exports refused meanwhile, a confirmation when done', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess | undefined;
  let mail: MailCatcher;
  let env: Record<string, string>;

  before(async () => {
    mail = await startMailCatcher();
    env = { RALLY_TASK_QUEUE: uniqueTaskQueue('deletion-mail'), SMTP_URL: mail.url };
    api = await startApi(env);
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await mail.stop();
  });

  const call = async (method: string, route: string, token: string) => {
    const response = await fetch(`${api.baseUrl}${route}`, { method, headers: bearer(token) });
    return { status: response.status, body: await json(response) };
  };

  it('answers 409 account_deletion_running to an export, then emails the address on file once the account is gone', async () => {
    const user = await createTestUser({ name: 'Mary Jackson' });
    const { accessToken } = await login(api.baseUrl, user);
    expect((await call('DELETE', '/v1/users/me', accessToken)).status).to.equal(202);

    const exporting = await call('POST', '/v1/users/me/export', accessToken);
    expect(exporting.status, JSON.stringify(exporting.body)).to.equal(409);
    expect(exporting.body.code).to.equal('account_deletion_running');

    worker = await startWorker(env);
    const message = await mail.waitFor(user.email, /account has been deleted/, 90_000);
    expect(message.to).to.deep.equal([user.email]);
    const { db, temporal } = testEnvironment();
    const left = await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM users WHERE id = ${user.id}`);
    expect(left, 'the confirmation comes after the user row is gone').to.equal(0);

    const history = await temporal.client.workflow.getHandle(accountDeletionWorkflowId(user.id)).fetchHistory();
    const readable = JSON.stringify(history, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value));
    expect(readable, 'the history names the workflow').to.include(user.id);
    expect(readable.toLowerCase(), "the address is sealed in the workflow's history").to.not.include(user.email.toLowerCase());
  });
});
