// A petition says when its signers' details are deleted (issue 46): GET /v1/petitions/{id} carries
// signer_data_deletion_due_at (closed_at + RALLY_SIGNER_DATA_RETENTION once it has closed or won) and
// signer_data_deleted_at; the petition's page says the same in words.
import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { createTestUser, login } from '../support/identity.ts';
import { publishedPetition, transition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const RETENTION_DAYS = 30;
const RETENTION_MS = RETENTION_DAYS * 86_400_000;
const longDate = (iso: string) => new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(new Date(iso));

describe('petition signer-data dates (RALLY_SIGNER_DATA_RETENTION)', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;

  before(async () => {
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('signer-data-dates'), RALLY_SIGNER_DATA_RETENTION: `${RETENTION_DAYS}d` };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const read = async (id: string) => (await json(await fetch(`${api.baseUrl}/v1/petitions/${id}`))).data;
  const page = async (slug: string) => (await fetch(`${api.baseUrl}/p/${slug}`)).text();

  it('a running petition has no due date; its page says how long after closing the details are kept', async () => {
    const token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const petition = await publishedPetition(api.baseUrl, token);
    expect(await read(petition.id)).to.include({ signer_data_deleted_at: null, signer_data_deletion_due_at: null });
    expect(await page(petition.slug)).to.include(`Signers&#39; names and details are deleted ${RETENTION_DAYS} days after this petition closes.`);
  });

  it('a closed petition is due closed_at + the retention, and says when they were deleted once they are', async () => {
    const token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const petition = await publishedPetition(api.baseUrl, token);
    const closing = await transition(api.baseUrl, token, petition.id, 'close');
    expect(closing.status).to.equal(200);
    const closed = (await json(closing)).data;
    const due = new Date(Date.parse(closed.closed_at) + RETENTION_MS).toISOString();
    expect(closed).to.include({ signer_data_deletion_due_at: due, signer_data_deleted_at: null });
    expect(await read(petition.id)).to.include({ signer_data_deletion_due_at: due, signer_data_deleted_at: null });
    expect(await page(petition.slug)).to.include(`Signers&#39; names and details will be deleted on ${longDate(due)}`);

    // What the forget-signer-data workflow records (its own test: test/workflows/forget-signer-data.test.ts).
    const deletedAt = '2026-01-15T09:00:00.000Z';
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE petitions SET signer_data_deleted_at = ${deletedAt} WHERE id = ${petition.id}`);
    // Read as its creator: anonymous reads may come from the public petition cache for a few seconds.
    const afterDeletion = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, { headers: { authorization: `Bearer ${token}` } }));
    expect(Date.parse(afterDeletion.data.signer_data_deleted_at)).to.equal(Date.parse(deletedAt));
    expect(await page(petition.slug)).to.include('Signers&#39; names and details were deleted on January 15, 2026');
  });
});
