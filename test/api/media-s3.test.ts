// The S3 implementation of media storage. The signer is checked against AWS's published SigV4
// example: s3rver, the local S3-compatible server from npm, checks a pre-signed URL's access key and
// expiry but not its V4 signature, so the known answer is what proves the signing. The storage and
// a whole upload with S3_ENDPOINT set (the client PUTs straight to the store) run against s3rver.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { createS3Storage } from '../../platform/storage/s3-storage.ts';
import { canonicalRequest, presignUrl } from '../../platform/storage/sigv4.ts';
import { createTestUser, login } from '../support/identity.ts';
import { createMediaClient, makePng } from '../support/media.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startS3Server } from '../support/s3.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html, "Example: GET Object".
const AWS_EXAMPLE = {
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' },
  url: 'https://examplebucket.s3.amazonaws.com/test.txt',
  now: new Date('2013-05-24T00:00:00Z'),
  canonicalRequestSha256: '3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04',
  presigned: 'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
};

describe('S3 media storage', function () {
  this.timeout(90_000);
  let s3: Awaited<ReturnType<typeof startS3Server>>;

  before(async () => {
    s3 = await startS3Server();
  });
  after(() => s3.stop());

  it("signs exactly as AWS's published SigV4 pre-signed URL example", () => {
    const query: [string, string][] = [
      ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'], ['X-Amz-Credential', 'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request'],
      ['X-Amz-Date', '20130524T000000Z'], ['X-Amz-Expires', '86400'], ['X-Amz-SignedHeaders', 'host'],
    ];
    const canonical = canonicalRequest('GET', new URL(AWS_EXAMPLE.url), query, { host: 'examplebucket.s3.amazonaws.com' });
    expect(createHash('sha256').update(canonical).digest('hex')).to.equal(AWS_EXAMPLE.canonicalRequestSha256);
    expect(presignUrl(AWS_EXAMPLE.credentials, { method: 'GET', url: AWS_EXAMPLE.url, expiresInSeconds: 86400, now: AWS_EXAMPLE.now })).to.equal(AWS_EXAMPLE.presigned);
  });

  it('writes, sizes, reads and removes objects through pre-signed requests', async () => {
    const storage = createS3Storage(s3.settings);
    const body = Buffer.from('variant bytes');
    await storage.write('media/abc/large.webp', body, 'image/webp');
    expect(await storage.size('media/abc/large.webp')).to.equal(body.length);
    expect((await storage.read('media/abc/large.webp')).equals(body)).to.equal(true);
    const served = await fetch(storage.publicUrl('media/abc/large.webp'));
    expect(served.headers.get('content-type')).to.equal('image/webp');
    await storage.remove('media/abc/large.webp');
    expect(await storage.size('media/abc/large.webp')).to.equal(null);
    const forged = createS3Storage({ ...s3.settings, accessKeyId: 'NOT-A-KEY' });
    const refused = await forged.size('media/abc/large.webp').then(() => 'accepted', (error: Error) => error.message);
    expect(refused).to.match(/answered 403/);
  });

  it('signs the declared Content-Type into upload URLs, which the store refuses once expired (403)', async () => {
    const storage = createS3Storage(s3.settings);
    const mediaId = '7f1c9a52-3c0a-4d9e-9b7e-2d1f0a6b5c44';
    const url = storage.uploadUrl({ mediaId, contentType: 'image/png', expiresAt: new Date(Date.now() + 60_000) });
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).to.equal('content-type;host');
    const png = await makePng(40, 40);
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).to.equal(200);
    const shortLived = storage.uploadUrl({ mediaId, contentType: 'image/png', expiresAt: new Date(Date.now() + 1_000) });
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
      const ticket = await client.requestUpload('petition_image', 'banner.png', 'image/png');
      expect(ticket.upload_url.startsWith(`${s3.settings.endpoint}/rally-media/uploads/${ticket.media_id}?`)).to.equal(true);
      expect((await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: await makePng(1300, 800) })).status).to.equal(200);
      expect((await client.confirm(ticket.media_id)).status).to.equal(200);
      const media = await client.settled(ticket.media_id);
      expect(media.status, media.failure_reason).to.equal('ready');
      expect(media.variants[0].url).to.equal(`${s3.settings.publicUrl}/media/${ticket.media_id}/large.webp`);
      const large = Buffer.from(await (await fetch(media.variants[0].url)).arrayBuffer());
      expect(await sharp(large).metadata()).to.include({ format: 'webp', width: 1200 });
      expect(await createS3Storage(s3.settings).size(`uploads/${ticket.media_id}`)).to.equal(null);
    });

    it('answers 413 at confirm when the object in the store is over the limit', async () => {
      const ticket = await client.requestUpload('petition_image', 'huge.png', 'image/png');
      expect((await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(250_000) })).status).to.equal(200);
      expect((await client.confirm(ticket.media_id)).status).to.equal(413);
      expect((await client.media(ticket.media_id)).status).to.equal('failed');
    });
  });
});
