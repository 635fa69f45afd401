// The media-processing workflow against a real worker process that is killed while it reads an upload. The read is held open deterministically: the stored
// original is replaced by a named pipe (FIFO) that nobody writes, so the activity is blocked in the middle when the worker dies. Once the real file is back,
// the restarted worker's retry (after the 5 s heartbeat timeout) finishes the job.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mediaProcessingWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { createTestUser, login } from '../support/identity.ts';
import { createMediaClient, makePng } from '../support/media.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

// temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
const ACTIVITY_STARTED = 2;

describe('media-processing workflow', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mediaDir: string;
  let env: Record<string, string>;
  let client: ReturnType<typeof createMediaClient>;

  before(async () => {
    mediaDir = await mkdtemp(path.join(tmpdir(), 'rally-media-workflow-'));
    env = { RALLY_TASK_QUEUE: uniqueTaskQueue('media-processing'), RALLY_MEDIA_DIR: mediaDir };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    client = createMediaClient(api.baseUrl, (await login(api.baseUrl, await createTestUser())).accessToken);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await rm(mediaDir, { recursive: true, force: true });
  });

  it('finishes after the worker is killed in the middle of reading the upload', async () => {
    const png = await makePng(1600, 900);
    const ticket = await client.requestUpload('petition_image', 'held.png', 'image/png');
    expect((await client.put(ticket.upload_url, png, 'image/png')).status).to.equal(200);
    const original = path.join(mediaDir, 'uploads', ticket.media_id);
    await rm(original);
    await promisify(execFile)('mkfifo', [original]);

    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const handle = testEnvironment().temporal.client.workflow.getHandle(mediaProcessingWorkflowId(ticket.media_id));
    await eventually(
      async () => {
        const { raw } = await handle.describe();
        return raw.pendingActivities?.some((activity) => activity.activityType?.name === 'inspectUpload' && activity.state === ACTIVITY_STARTED) || undefined;
      },
      30_000,
      'inspectUpload to be running',
    );
    expect((await client.media(ticket.media_id)).status).to.equal('processing');

    await worker.stop('SIGKILL');
    await rm(original);
    await writeFile(original, png);
    worker = await startWorker(env);

    const media = await client.settled(ticket.media_id, 60_000);
    expect(media.status, media.failure_reason).to.equal('ready');
    expect(media.variants.map((variant: { width: number }) => variant.width)).to.deep.equal([1200, 400]);

    const { events } = await handle.fetchHistory();
    const scheduled = events!.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'inspectUpload')!;
    const started = events!.find((event) => String(event.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId));
    expect(started?.activityTaskStartedEventAttributes?.attempt).to.be.at.least(2);
    await captureHistory('media-processing-ready-after-worker-kill', handle);
  });

  it('records a failed run with the reason when the file is not what it claims', async () => {
    const ticket = await client.requestUpload('user_avatar', 'me.gif', 'image/gif');
    expect((await client.put(ticket.upload_url, await makePng(64, 64), 'image/gif')).status).to.equal(200);
    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const handle = testEnvironment().temporal.client.workflow.getHandle(mediaProcessingWorkflowId(ticket.media_id));
    expect(await handle.result()).to.deep.include({ mediaId: ticket.media_id, status: 'failed' });
    expect((await client.media(ticket.media_id)).failure_reason).to.match(/PNG image but was declared as image\/gif/);
    await captureHistory('media-processing-failed', handle);
  });
});
