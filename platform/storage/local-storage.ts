// MediaStorage in a local folder (RALLY_MEDIA_DIR, default .data/media), for one-machine setups and tests. Upload URLs point at Rally's own PUT
// /v1/media/uploads/{id} (api/media/local-routes.ts); variants are served by GET /v1/media/{id}/{variant}.webp. Writes go to a temporary file first and are
// renamed into place, so a reader never sees half a file.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaStorage } from './media-storage.ts';

// Upload URLs that point at Rally itself carry their own proof: an expiry and an HMAC-SHA256 of the
// media id and that expiry, keyed with RALLY_MEDIA_SIGNING_KEY. Changing either breaks the signature;
// nothing about the URL is stored.
function sign(signingKey: string, mediaId: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`PUT ${mediaId} ${expires}`).digest('base64url');
}

export function signUpload(signingKey: string, mediaId: string, expiresAt: Date): { expires: number; signature: string } {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return { expires, signature: sign(signingKey, mediaId, expires) };
}

export type UploadSignatureCheck = 'valid' | 'invalid' | 'expired';

/** The signature is checked before the expiry, so a forged URL never learns whether it is expired. */
export function checkUploadSignature(signingKey: string, mediaId: string, expires: number, signature: string, now = Date.now()): UploadSignatureCheck {
  const expected = Buffer.from(sign(signingKey, mediaId, expires));
  const presented = Buffer.from(signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return 'invalid';
  return expires * 1000 <= now ? 'expired' : 'valid';
}

export type LocalStorageOptions = { dir: string; publicUrl: string; signingKey: string };

export class UploadTooLargeError extends Error {
  override name = 'UploadTooLargeError';
}

export function localPath(dir: string, key: string): string {
  return path.resolve(dir, ...key.split('/'));
}

/**
 * Streams a request body into a temporary file beside `key`, stopping with UploadTooLargeError as
 * soon as more than maxBytes arrive. Returns the size and a commit that moves the file into place.
 */
export async function receiveUpload(dir: string, key: string, body: Readable, maxBytes: number) {
  const target = localPath(dir, key);
  const temporary = `${target}.${randomUUID()}.part`;
  await mkdir(path.dirname(target), { recursive: true });
  let received = 0;
  async function* capped(source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      received += chunk.length;
      if (received > maxBytes) throw new UploadTooLargeError(`more than ${maxBytes} bytes`);
      yield chunk;
    }
  }
  try {
    await pipeline(body, capped, createWriteStream(temporary));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return {
    size: received,
    commit: () => rename(temporary, target),
    discard: () => rm(temporary, { force: true }),
  };
}

export function createLocalStorage(options: LocalStorageOptions): MediaStorage {
  const file = (key: string) => localPath(options.dir, key);
  return {
    kind: 'local',
    async uploadUrl({ mediaId, expiresAt }) {
      const { expires, signature } = signUpload(options.signingKey, mediaId, expiresAt);
      return `${options.publicUrl}/v1/media/uploads/${mediaId}?expires=${expires}&signature=${signature}`;
    },
    async size(key) {
      const found = await stat(file(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      return found ? found.size : null;
    },
    read: (key) => readFile(file(key)),
    async write(key, body) {
      const target = file(key);
      const temporary = `${target}.${randomUUID()}.part`;
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(temporary, body);
      await rename(temporary, target);
    },
    remove: (key) => rm(file(key), { force: true }),
    publicUrl: (key) => `${options.publicUrl}/v1/${key}`,
  };
}
