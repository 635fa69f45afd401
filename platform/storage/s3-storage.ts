// MediaStorage on any S3-compatible store, path-style (`{endpoint}/{bucket}/{key}`), through AWS's own SDK, whose signer covers session tokens, instance roles
// and signed checksums (a hand-written one did not). The SDK is loaded on first use: processes on local storage never pay for it.
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.ts';
import type { MediaStorage } from './media-storage.ts';
import { originalKey } from './media-storage.ts';

type Sdk = { s3: typeof import('@aws-sdk/client-s3'); presigner: typeof import('@aws-sdk/s3-request-presigner'); client: S3Client };

type ServiceError = Error & { $metadata?: { httpStatusCode?: number } };

function statusOf(error: unknown): number | undefined {
  return (error as ServiceError).$metadata?.httpStatusCode;
}

// The upload URL signs its Content-Type, so a PUT with another type is refused by the store itself (403). A
// pre-signed PUT cannot cap the size, so confirm checks it with HEAD (413 past the limit).
export function createS3Storage(settings: S3Settings): MediaStorage {
  let sdk: Promise<Sdk> | undefined;
  const load = () =>
    (sdk ??= (async () => {
      const [s3, presigner] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
      const client = new s3.S3Client({
        endpoint: settings.endpoint,
        region: settings.region,
        forcePathStyle: true,
        credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
        // Checksums only where S3 requires them: many S3-compatible stores reject the newer trailers,
        // and a browser's pre-signed PUT cannot compute one.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { s3, presigner, client };
    })());
  const Bucket = settings.bucket;

  /** Runs one call; a 404 is `null` for reads, anything else non-2xx an error naming the status. */
  async function call<T>(operation: string, key: string, run: (sdk: Sdk) => Promise<T>): Promise<T | null> {
    try {
      return await run(await load());
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 && operation !== 'PUT') return null;
      // The store's error code names the problem (AccessDenied, NoSuchBucket…); it holds no secrets.
      throw new Error(`S3 ${operation} ${key} answered ${status ?? 'no status'}: ${(error as Error).name}`, { cause: error });
    }
  }

  return {
    kind: 's3',
    async uploadUrl({ mediaId, contentType, expiresAt }) {
      const { s3, presigner, client } = await load();
      const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
      const command = new s3.PutObjectCommand({ Bucket, Key: originalKey(mediaId), ContentType: contentType });
      return presigner.getSignedUrl(client, command, { expiresIn, signableHeaders: new Set(['content-type']) });
    },
    async size(key) {
      const head = await call('HEAD', key, ({ s3, client }) => client.send(new s3.HeadObjectCommand({ Bucket, Key: key })));
      return head ? Number(head.ContentLength) : null;
    },
    async read(key) {
      const object = await call('GET', key, async ({ s3, client }) => {
        const answer = await client.send(new s3.GetObjectCommand({ Bucket, Key: key }));
        return answer.Body!.transformToByteArray();
      });
      if (!object) throw new Error(`S3 object ${key} does not exist`);
      return Buffer.from(object);
    },
    async write(key, body, contentType) {
      await call('PUT', key, ({ s3, client }) =>
        client.send(new s3.PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length })),
      );
    },
    async remove(key) {
      await call('DELETE', key, ({ s3, client }) => client.send(new s3.DeleteObjectCommand({ Bucket, Key: key })));
    },
    publicUrl: (key) => `${settings.publicUrl}/${key}`,
  };
}
