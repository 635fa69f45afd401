// The media storage the configuration asks for: an S3-compatible store when S3_ENDPOINT is set, the
// local folder otherwise. Apart from the interface (media-storage.ts), which both implementations import.
import type { Config } from '../config.ts';
import { createLocalStorage } from './local-storage.ts';
import type { MediaStorage } from './media-storage.ts';
import { createS3Storage } from './s3-storage.ts';

export function createMediaStorage(config: Pick<Config, 'media' | 'publicUrl'>): MediaStorage {
  return config.media.s3
    ? createS3Storage(config.media.s3)
    : createLocalStorage({ dir: config.media.dir, publicUrl: config.publicUrl, signingKey: config.media.signingKey });
}
