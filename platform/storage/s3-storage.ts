// MediaStorage on any S3-compatible store, path-style (`{endpoint}/{bucket}/{key}`). Every call is
// a pre-signed request, so the one signer in sigv4.ts is the only credential code. The client's
// upload URL signs its Content-Type: a PUT with another type is refused by the store itself (403).
// A pre-signed PUT cannot cap the size, so confirm checks it with HEAD (413 past the limit).
import type { S3Settings } from '../config.ts';
import type { MediaStorage } from './media-storage.ts';
import { originalKey } from './media-storage.ts';
import { presignUrl } from './sigv4.ts';

// Server-side calls are made at once; their signatures need only outlive the request.
const SERVER_CALL_EXPIRY_SECONDS = 300;

export function createS3Storage(settings: S3Settings): MediaStorage {
  const credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, region: settings.region };
  const objectUrl = (key: string) => `${settings.endpoint}/${settings.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

  async function call(method: 'GET' | 'PUT' | 'HEAD' | 'DELETE', key: string, init: { body?: Buffer; contentType?: string } = {}) {
    const headers = init.contentType ? { 'content-type': init.contentType } : undefined;
    const url = presignUrl(credentials, { method, url: objectUrl(key), expiresInSeconds: SERVER_CALL_EXPIRY_SECONDS, headers });
    const response = await fetch(url, { method, headers, body: init.body ? new Uint8Array(init.body) : undefined });
    if (!response.ok && !(response.status === 404 && method !== 'PUT')) {
      // The store's XML error names the problem (AccessDenied, NoSuchBucket…); it holds no secrets.
      throw new Error(`S3 ${method} ${key} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    return response;
  }

  return {
    kind: 's3',
    uploadUrl({ mediaId, contentType, expiresAt }) {
      const expiresInSeconds = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
      return presignUrl(credentials, { method: 'PUT', url: objectUrl(originalKey(mediaId)), expiresInSeconds, headers: { 'content-type': contentType } });
    },
    async size(key) {
      const response = await call('HEAD', key);
      return response.status === 404 ? null : Number(response.headers.get('content-length'));
    },
    async read(key) {
      const response = await call('GET', key);
      if (response.status === 404) throw new Error(`S3 object ${key} does not exist`);
      return Buffer.from(await response.arrayBuffer());
    },
    async write(key, body, contentType) {
      await call('PUT', key, { body, contentType });
    },
    async remove(key) {
      await call('DELETE', key);
    },
    publicUrl: (key) => `${settings.publicUrl}/${key}`,
  };
}
