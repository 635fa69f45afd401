// A local S3-compatible server (s3rver) for the S3 storage tests. It checks SigV4 signatures and
// expiry like S3 does, with its fixed test credentials S3RVER / S3RVER.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../platform/config.ts';

export const S3_BUCKET = 'rally-media';

export async function startS3Server() {
  const directory = await mkdtemp(path.join(tmpdir(), 'rally-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: S3_BUCKET }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = { endpoint, bucket: S3_BUCKET, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', publicUrl: `${endpoint}/${S3_BUCKET}` };
  return {
    settings,
    /** The same settings as the service reads them from its environment. */
    env: { S3_ENDPOINT: endpoint, S3_BUCKET, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
