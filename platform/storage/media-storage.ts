// Where uploaded images and their processed variants live: a local folder served by Rally itself (the default) or any S3-compatible store (S3_ENDPOINT set),
// picked by create-media-storage.ts. The API hands out upload URLs and checks sizes; the worker's activities read originals and write variants.
export type UploadTarget = { mediaId: string; contentType: string; expiresAt: Date };

export type MediaStorage = {
  kind: 'local' | 's3';
  /** Where the client PUTs the original, with the declared Content-Type, until expiresAt. */
  uploadUrl(target: UploadTarget): Promise<string>;
  /** Size in bytes of a stored object; null when nothing is there. */
  size(key: string): Promise<number | null>;
  read(key: string): Promise<Buffer>;
  write(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Removes an object; removing a missing one is not an error. */
  remove(key: string): Promise<void>;
  /** The public address of a stored variant. */
  publicUrl(key: string): string;
};

// Keys are the same in both stores: `uploads/<media id>` for originals, which are never served, and
// `media/<media id>/<variant>.webp` for the published variants.
export const originalKey = (mediaId: string) => `uploads/${mediaId}`;
export const variantKey = (mediaId: string, variant: string) => `media/${mediaId}/${variant}.webp`;
