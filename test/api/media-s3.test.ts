// The S3 implementation of media storage, on AWS's SDK. The store in these tests (test/support/s3.ts) re-signs every request with AWS's own SigV4 signer and
// refuses any whose signature, expiry or payload hash does not hold, so passing here means the signatures are right, not merely present. A whole upload with
// S3_ENDPOINT set (the client PUTs straight to the store) runs against it too.
import { expect } from 'chai';
import { eventually } from '../support/events.ts';
import sharp from 'sharp';
import { createS3Storage } from '../../platform/storage/s3-storage.ts';
import { createTestUser, login } from '../support/identity.ts';
import { createMediaClient, makePng } from '../support/media.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startS3Server } from '../support/s3.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('S3 media storage', function () {
  this.timeout(90_000);
  let s3: Awaited<ReturnType<typeof startS3Server>>;

  before(async () => {
    s3 = await startS3Server();
  });
  after(() => s3.stop());

  it('writes, sizes, reads and removes objects with requests whose signatures the store verifies', async () => {
    const storage = createS3Storage(s3.settings);
    const body = Buffer.from('variant bytes');
    const before = s3.checked.length;
    await storage.write('media/abc/large.webp', body, 'image/webp');
    expect(await storage.size('media/abc/large.webp')).to.equal(body.length);
    expect((await storage.read('media/abc/large.webp')).equals(body)).to.equal(true);
    await storage.remove('media/abc/large.webp');
    expect(await storage.size('media/abc/large.webp')).to.equal(null);
    const calls = s3.checked.slice(before);
    expect(calls.map((call) => call.method)).to.deep.equal(['PUT', 'HEAD', 'GET', 'DELETE', 'HEAD']);
    expect(
      calls.every((call) => call.auth === 'header' && call.verified),
      JSON.stringify(calls),
    ).to.equal(true);
  });

  it('serves a written variant publicly at its public URL', async () => {
    const storage = createS3Storage(s3.settings);
    await storage.write('media/pub/large.webp', Buffer.from('public bytes'), 'image/webp');
    const served = await fetch(storage.publicUrl('media/pub/large.webp'));
    expect(served.headers.get('content-type')).to.equal('image/webp');
  });

  it('is refused (403) when signing with the wrong secret', async () => {
    const forged = createS3Storage({ ...s3.settings, secretAccessKey: 'not-the-secret' });
    const refused = await forged.size('media/abc/large.webp').then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    expect(refused).to.match(/answered 403/);
    expect(s3.checked.at(-1)).to.include({ auth: 'header', verified: false, reason: 'SignatureDoesNotMatch' });
  });

  it('signs the declared Content-Type into upload URLs: another type, or an expired URL, is refused (403)', async () => {
    const storage = createS3Storage(s3.settings);
    const mediaId = '7f1c9a52-3c0a-4d9e-9b7e-2d1f0a6b5c44';
    const url = await storage.uploadUrl({ mediaId, contentType: 'image/png', expiresAt: new Date(Date.now() + 60_000) });
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).to.equal('content-type;host');
    const png = await makePng(40, 40);
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).to.equal(200);
    expect(s3.checked.at(-1)).to.include({ auth: 'query', verified: true });
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/gif' }, body: png })).status).to.equal(403);
    const shortLived = await storage.uploadUrl({ mediaId, contentType: 'image/png', expiresAt: new Date(Date.now() + 1_000) });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await fetch(shortLived, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).to.equal(403);
  });

  describe('with S3_ENDPOINT set', () => {
    let api: RunningApi;
    let worker: RallyProcess;
    let client: ReturnType<typeof createMediaClient>;
    before(async () => {
      const env = { ...s3.env, RALLY_TASK_QUEUE: uniqueTaskQueue('media-s3'), RALLY_MEDIA_MAX_BYTES: '200000' };
      [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
      client = createMediaClient(api.baseUrl, (await login(api.baseUrl, await createTestUser())).accessToken);
    });
    after(() => Promise.all([api.stop(), worker.stop()]));

    it('uploads straight to the store, processes from it and publishes the variants there', async () => {
      const seenBefore = s3.checked.length;
      const ticket = await client.requestUpload('petition_image', 'banner.png', 'image/png');
      expect(ticket.upload_url.startsWith(`${s3.settings.endpoint}/rally-media/uploads/${ticket.media_id}?`)).to.equal(true);
      expect((await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: await makePng(1300, 800) })).status).to.equal(
        200,
      );
      expect((await client.confirm(ticket.media_id)).status).to.equal(200);
      const media = await client.settled(ticket.media_id);
      expect(media.status, media.failure_reason).to.equal('ready');
      expect(media.variants[0].url).to.equal(`${s3.settings.publicUrl}/media/${ticket.media_id}/large.webp`);
      const large = Buffer.from(await (await fetch(media.variants[0].url)).arrayBuffer());
      expect(await sharp(large).metadata()).to.include({ format: 'webp', width: 1200 });
      // The workflow discards the original once the variants are attached, a moment after `ready`.
      await eventually(
        async () => ((await createS3Storage(s3.settings).size(`uploads/${ticket.media_id}`)) === null ? true : undefined),
        30_000,
        'the original removed from the store',
      );
      const signed = s3.checked.slice(seenBefore).filter((call) => call.auth !== 'anonymous');
      expect(signed.length).to.be.greaterThan(3);
      expect(
        signed.every((call) => call.verified),
        JSON.stringify(signed.filter((call) => !call.verified)),
      ).to.equal(true);
    });

    it('answers 413 at confirm when the object in the store is over the limit', async () => {
      const ticket = await client.requestUpload('petition_image', 'huge.png', 'image/png');
      expect((await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(250_000) })).status).to.equal(200);
      expect((await client.confirm(ticket.media_id)).status).to.equal(413);
      expect((await client.media(ticket.media_id)).status).to.equal('failed');
    });
  });
});
