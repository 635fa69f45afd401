// Media uploads end to end: a real API and worker process sharing a temporary media folder; images
// made here with sharp, uploaded through the signed URL, confirmed, processed and read back.
import { expect } from 'chai';
import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { z } from 'zod';
import { loadConfig } from '../../platform/config.ts';
import { signUpload } from '../../platform/storage/local-storage.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { createTestUser, login } from '../support/identity.ts';
import { createMediaClient, makeJpegWithGps, makePng } from '../support/media.ts';
import { createPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';
import { mediaProcessingWorkflowId, purgeAbandonedUploads } from '../../workflows/index.ts';

const MAX_BYTES = 200_000;

describe('media uploads', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mediaDir: string;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let client: ReturnType<typeof createMediaClient>;
  const taskQueue = uniqueTaskQueue('media');

  before(async () => {
    mediaDir = await mkdtemp(path.join(tmpdir(), 'rally-media-'));
    const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_MEDIA_DIR: mediaDir, RALLY_MEDIA_MAX_BYTES: String(MAX_BYTES) };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    user = await createTestUser();
    client = createMediaClient(api.baseUrl, (await login(api.baseUrl, user)).accessToken);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await rm(mediaDir, { recursive: true, force: true });
  });

  async function upload(entityType: string, filename: string, contentType: string, bytes: Buffer) {
    const ticket = await client.requestUpload(entityType, filename, contentType);
    const put = await client.put(ticket.upload_url, bytes, contentType);
    expect(put.status, JSON.stringify(await put.clone().json())).to.equal(200);
    return ticket;
  }

  it('processes a PNG into 1200px and 400px WebP variants and sets the petition image', async () => {
    const petition = await createPetition(api.baseUrl, (await login(api.baseUrl, user)).accessToken);
    const ticket = await upload('petition_image', 'banner.png', 'image/png', await makePng(1600, 1000));
    expect(ticket.max_size_bytes).to.equal(MAX_BYTES);
    const confirmed = await client.confirm(ticket.media_id, petition.id);
    expect(confirmed.status).to.equal(200);
    expect((await json(confirmed)).data.status).to.be.oneOf(['uploaded', 'processing', 'ready']);

    const media = await client.settled(ticket.media_id);
    expect(media.status, media.failure_reason).to.equal('ready');
    expect(media.variants.map((variant: { name: string; width: number; height: number }) => [variant.name, variant.width, variant.height])).to.deep.equal([
      ['large', 1200, 750],
      ['small', 400, 250],
    ]);
    const image = await fetch(client.reachable(media.variants[0].url));
    expect(image.headers.get('content-type')).to.equal('image/webp');
    expect(await sharp(Buffer.from(await image.arrayBuffer())).metadata()).to.include({ format: 'webp', width: 1200, height: 750 });

    const imageUrl = await testEnvironment().db.oneFirst(
      sql.type(z.object({ image_url: z.string().nullable() }))`SELECT image_url FROM petitions WHERE id = ${petition.id}`,
    );
    expect(imageUrl).to.equal(media.variants[0].url);
    // The original is not kept once the clean variants exist: the workflow's last step, just after
    // the media shows ready.
    await testEnvironment().temporal.client.workflow.getHandle(mediaProcessingWorkflowId(ticket.media_id)).result();
    expect(await stat(path.join(mediaDir, 'uploads', ticket.media_id)).catch(() => null)).to.equal(null);
  });

  it('strips EXIF, GPS included, from a JPEG avatar and crops it to a 256px square', async () => {
    const jpeg = await makeJpegWithGps(900, 600);
    expect((await sharp(jpeg).metadata()).exif?.includes('WGS-84')).to.equal(true);
    const ticket = await upload('user_avatar', 'me.jpeg', 'image/jpeg', jpeg);
    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const media = await client.settled(ticket.media_id);
    expect(media.status, media.failure_reason).to.equal('ready');
    const avatar = Buffer.from(await (await fetch(client.reachable(media.variants[0].url))).arrayBuffer());
    const metadata = await sharp(avatar).metadata();
    expect(metadata).to.include({ format: 'webp', width: 256, height: 256 });
    expect(metadata.exif).to.equal(undefined);
    expect(metadata.xmp).to.equal(undefined);
    expect(avatar.includes('WGS-84')).to.equal(false);
    const me = await json(await client.call('/v1/users/me'));
    expect(me.data.avatar_url).to.equal(media.variants[0].url);
  });

  it('refuses a PNG named .jpg, from its magic bytes', async () => {
    const ticket = await upload('petition_image', 'holiday.jpg', 'image/jpeg', await makePng(300, 200));
    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const media = await client.settled(ticket.media_id);
    expect(media.status).to.equal('failed');
    expect(media.failure_reason).to.match(/PNG image but was declared as image\/jpeg/);
  });

  it('fails a corrupt image with the reason', async () => {
    const corrupt = Buffer.concat([(await makePng(300, 200)).subarray(0, 60), Buffer.alloc(2000, 7)]);
    const ticket = await upload('petition_image', 'broken.png', 'image/png', corrupt);
    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const media = await client.settled(ticket.media_id);
    expect(media.status).to.equal('failed');
    expect(media.failure_reason).to.match(/corrupt/);
  });

  it('refuses tampered and expired upload URLs with 403', async () => {
    const ticket = await client.requestUpload('petition_image', 'a.png', 'image/png');
    const png = await makePng(50, 50);
    const url = new URL(client.reachable(ticket.upload_url));
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const refused = await fetch(tampered, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
    expect(refused.status).to.equal(403);
    expect((await json(refused)).code).to.equal('invalid_upload_signature');

    // Signed with the (development) key the API uses, but an hour in the past.
    const { expires, signature } = signUpload(loadConfig({}).media.signingKey, ticket.media_id, new Date(Date.now() - 3_600_000));
    const expired = await fetch(`${api.baseUrl}/v1/media/uploads/${ticket.media_id}?expires=${expires}&signature=${signature}`, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: png,
    });
    expect(expired.status).to.equal(403);
    expect((await json(expired)).code).to.equal('upload_url_expired');
  });

  it('refuses a content type other than the declared one with 415', async () => {
    const ticket = await client.requestUpload('petition_image', 'a.png', 'image/png');
    const response = await client.put(ticket.upload_url, await makePng(50, 50), 'image/gif');
    expect(response.status).to.equal(415);
    expect((await json(response)).code).to.equal('content_type_mismatch');
  });

  it('stops reading past max_size_bytes with 413, whether or not the length is announced', async () => {
    const ticket = await client.requestUpload('petition_image', 'big.png', 'image/png');
    const oversized = new Uint8Array(MAX_BYTES + 1);
    expect((await client.put(ticket.upload_url, oversized, 'image/png')).status).to.equal(413);
    const chunk = new Uint8Array(64 * 1024);
    const stream = new ReadableStream({
      pull(controller) {
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetch(client.reachable(ticket.upload_url), {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).to.equal(413);
    expect((await client.media(ticket.media_id)).status).to.equal('pending_upload');
  });

  it('answers 413 at confirm for a file that grew past the limit in storage', async () => {
    const ticket = await upload('petition_image', 'grown.png', 'image/png', await makePng(100, 100));
    await appendFile(path.join(mediaDir, 'uploads', ticket.media_id), Buffer.alloc(MAX_BYTES));
    const response = await client.confirm(ticket.media_id);
    expect(response.status).to.equal(413);
    expect((await client.media(ticket.media_id)).status).to.equal('failed');
  });

  it('processes once when confirmed twice', async () => {
    const ticket = await upload('petition_image', 'twice.png', 'image/png', await makePng(500, 300));
    const [first, second] = await Promise.all([client.confirm(ticket.media_id), client.confirm(ticket.media_id)]);
    expect([first.status, second.status]).to.deep.equal([200, 200]);
    expect((await client.settled(ticket.media_id)).status).to.equal('ready');
    expect((await client.confirm(ticket.media_id)).status).to.equal(200);
    const runs = await eventually(
      async () => {
        const found: string[] = [];
        for await (const execution of testEnvironment().temporal.client.workflow.list({ query: `RallyMediaId = '${ticket.media_id}'` }))
          found.push(execution.runId);
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the processing run to be listed',
    );
    expect(runs).to.have.length(1);
  });

  describe('the hourly purge-abandoned-uploads schedule', () => {
    it('removes uploads never confirmed within 24 hours, row and stored file, and keeps confirmed and recent ones', async () => {
      const abandoned = await upload('petition_image', 'abandoned.png', 'image/png', await makePng(40, 40));
      const neverSent = await client.requestUpload('petition_image', 'never.png', 'image/png');
      const recent = await upload('petition_image', 'recent.png', 'image/png', await makePng(40, 40));
      const confirmed = await upload('user_avatar', 'kept.png', 'image/png', await makePng(300, 300));
      expect((await client.confirm(confirmed.media_id)).status).to.equal(200);
      expect((await client.settled(confirmed.media_id)).status).to.equal('ready');
      const aged = [abandoned.media_id, neverSent.media_id, confirmed.media_id];
      await testEnvironment().db.query(sql.typeAlias('void')`
        UPDATE media SET created_at = now() - interval '25 hours' WHERE id = ANY(${sql.array(aged, 'uuid')})`);

      // The schedule starts this workflow on the worker's task queue; started here, it runs now.
      const run = await testEnvironment().temporal.client.workflow.start(purgeAbandonedUploads, {
        taskQueue,
        workflowId: `purge-abandoned-uploads-${taskQueue}`,
      });
      const result = await run.result();
      await captureHistory('purge-abandoned-uploads', run);
      expect(result.removed).to.be.at.least(2);

      const left = await testEnvironment().db.anyFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM media WHERE id = ANY(${sql.array([...aged, recent.media_id], 'uuid')}) ORDER BY created_at`);
      expect(left).to.have.members([confirmed.media_id, recent.media_id]);
      expect((await client.confirm(abandoned.media_id)).status).to.equal(404);
      const stored = (id: string) =>
        stat(path.join(mediaDir, 'uploads', id)).then(
          () => true,
          () => false,
        );
      expect(await stored(abandoned.media_id)).to.equal(false);
      expect(await stored(recent.media_id)).to.equal(true);
    });
  });

  it("answers 403 for an image on someone else's petition and 404 for someone else's upload", async () => {
    const other = await login(api.baseUrl, await createTestUser());
    const theirPetition = await createPetition(api.baseUrl, other.accessToken);
    const ticket = await upload('petition_image', 'x.png', 'image/png', await makePng(60, 60));
    expect((await client.confirm(ticket.media_id, theirPetition.id)).status).to.equal(403);
    const stranger = createMediaClient(api.baseUrl, other.accessToken);
    expect((await stranger.confirm(ticket.media_id)).status).to.equal(404);
    expect((await stranger.call(`/v1/media/${ticket.media_id}`)).status).to.equal(404);
  });

  it('answers 422 when the filename extension contradicts content_type', async () => {
    const response = await client.call('/v1/media/upload-url', {
      method: 'POST',
      body: JSON.stringify({ entity_type: 'user_avatar', filename: 'me.png', content_type: 'image/jpeg' }),
    });
    expect(response.status).to.equal(422);
    expect((await json(response)).errors[0]).to.include({ field: 'filename', code: 'extension_mismatch' });
  });
});
