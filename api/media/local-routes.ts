// The two routes of the local storage: PUT /v1/media/uploads/{id} receives an original through its
// signed URL, streamed to disk and cut off at the size limit; GET /v1/media/{id}/{variant}.webp
// serves processed variants (originals are never served). With S3 configured, neither is used.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { CONTENT_TYPES } from '../../core/media/media-types.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { sendData } from '../http/context.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import type { MediaDependencies } from '../../core/media/confirm.ts';
import { findMediaForUpload, markUploaded } from '../../core/media/queries.ts';
import { UploadParams, UploadQuery, UploadReceipt, VariantFileParams } from './schemas.ts';
import { checkUploadSignature, localPath, receiveUpload, UploadTooLargeError } from '../../platform/storage/local-storage.ts';
import { originalKey } from '../../platform/storage/media-storage.ts';

export function createLocalMediaRoutes(deps: MediaDependencies & { signingKey: string }): AnyRouteSpec[] {
  const alreadyConfirmed = () => new RallyError('conflict', 'This upload is already confirmed; it cannot be replaced.', { code: 'media_already_confirmed' });
  const tooLarge = () => new RallyError('payload-too-large', `Uploads are limited to ${deps.maxBytes} bytes.`, { code: 'file_too_large' });
  return [
    defineRoute({
      method: 'put',
      path: '/v1/media/uploads/:id',
      operationId: 'uploadMediaFile',
      tag: 'Media',
      auth: 'none',
      rawBody: true,
      requestContent: Object.fromEntries(
        CONTENT_TYPES.map((type) => [type, Type.String({ format: 'binary', description: 'The image bytes, with the Content-Type declared for the upload.' })]),
      ),
      summary: 'Upload an image file',
      description: 'Upload the file through the signed upload_url (body: the image bytes, Content-Type as declared).',
      params: UploadParams,
      query: UploadQuery,
      responses: { 200: { description: 'Stored; now call POST /v1/media/confirm', schema: UploadReceipt } },
      async handler(ctx, { params, query }) {
        const check = checkUploadSignature(deps.signingKey, params.id, query.expires, query.signature);
        assertThat(check !== 'invalid', 'forbidden', 'The upload URL signature is not valid.', { code: 'invalid_upload_signature' });
        assertThat(check !== 'expired', 'forbidden', 'The upload URL has expired: ask for a new one.', { code: 'upload_url_expired' });
        assertThat(deps.storage.kind === 'local', 'not-found', 'Uploads go to the configured object store, not here.');
        const declared = await findMediaForUpload(deps.db, params.id);
        assertThat(declared, 'not-found', `There is no upload ${params.id}.`);
        if (declared.confirmed_at) throw alreadyConfirmed();
        const sent = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
        assertThat(
          sent === declared.content_type,
          'unsupported-media-type',
          `This upload was declared as ${declared.content_type}; it was sent as ${sent || 'untyped'}.`,
          { code: 'content_type_mismatch' },
        );
        const length = Number(ctx.get('Content-Length') || Number.NaN);
        if (length > deps.maxBytes) throw tooLarge();

        const received = await receiveUpload(deps.mediaDir, originalKey(params.id), ctx.req, deps.maxBytes).catch((error: unknown) => {
          throw error instanceof UploadTooLargeError ? tooLarge() : error;
        });
        // The row lock orders this against confirm: a confirmed upload is never replaced underneath its workflow.
        const stored = await deps.db.transaction(async (tx) => {
          const media = await findMediaForUpload(tx, params.id, { lock: true });
          if (!media || media.confirmed_at) return false;
          await received.commit();
          await markUploaded(tx, params.id, received.size);
          return true;
        });
        if (!stored) {
          await received.discard();
          throw alreadyConfirmed();
        }
        sendData(ctx, { media_id: params.id, size_bytes: received.size, status: 'uploaded' });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/media/:id/:file',
      operationId: 'getMediaVariantFile',
      tag: 'Media',
      auth: 'none',
      summary: 'Get an image variant',
      description: 'A processed image variant (WebP, no metadata), as linked from image_url and avatar_url.',
      params: VariantFileParams,
      responses: { 200: { description: 'The image' } },
      async handler(ctx, { params }) {
        assertThat(deps.storage.kind === 'local', 'not-found', 'Images are served by the configured object store.');
        const file = localPath(deps.mediaDir, `media/${params.id}/${params.file}`);
        const found = await stat(file).catch(() => null);
        assertThat(found && found.isFile(), 'not-found', 'There is no such image.');
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.type = 'image/webp';
        ctx.length = found.size;
        ctx.body = createReadStream(file);
      },
    }),
  ];
}
