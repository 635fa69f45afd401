// /v1/media: ask for an upload URL, confirm the upload (which starts processing), read its state.
// Maximum upload size: RALLY_MEDIA_MAX_BYTES, 10 MiB by default, returned as max_size_bytes.
import type { DatabasePool } from 'slonik';
import type { Config } from '../../platform/config.ts';
import { sendData } from '../http/context.ts';
import { assertThat, fieldError } from '../http/problem.ts';
import { requireAppScope } from '../http/app-scopes.ts';
import type { EntityType } from '../../core/media/media-types.ts';
import { NOT_FOR_APPS, type RouteScope } from '../../core/auth/scopes.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { confirmUpload, type MediaDependencies, type MediaWorkflows } from '../../core/media/confirm.ts';
import { createLocalMediaRoutes } from './local-routes.ts';
import { findMedia, insertMedia } from '../../core/media/queries.ts';
import { ConfirmRequest, extensionAgrees, MediaEnvelope, MediaParams, toMedia, UploadUrlEnvelope, UploadUrlRequest } from './schemas.ts';
import { createMediaStorage } from '../../platform/storage/create-media-storage.ts';

/**
 * What an OAuth app needs beyond the routes' write:petitions, by what the image goes onto: an avatar
 * is a profile change, and organization assets are never an app's to change.
 */
const APP_SCOPE_OF_ENTITY: Record<EntityType, RouteScope> = {
  petition_image: 'write:petitions',
  petition_update_image: 'write:petitions',
  user_avatar: 'write:profile',
  org_logo: NOT_FOR_APPS,
  org_cover: NOT_FOR_APPS,
};

export function createMediaRoutes({ db, workflows, config }: { db: DatabasePool; workflows: MediaWorkflows; config: Config }): AnyRouteSpec[] {
  const deps: MediaDependencies = {
    db,
    workflows,
    storage: createMediaStorage(config),
    maxBytes: config.media.maxBytes,
    uploadUrlTtlMs: config.uploadUrlTtlMs,
    mediaDir: config.media.dir,
  };
  const base = { tag: 'Media', auth: 'required' } as const;
  return [
    defineRoute({
      ...base,
      scope: 'write:petitions',
      method: 'post',
      path: '/v1/media/upload-url',
      operationId: 'createMediaUploadUrl',
      permission: 'write',
      summary: 'Create an upload URL',
      description: 'A pre-signed URL to PUT one image to, valid RALLY_UPLOAD_URL_TTL (15 minutes).',
      body: UploadUrlRequest,
      responses: { 201: { description: 'Where and how to upload', schema: UploadUrlEnvelope } },
      async handler(ctx, { body }) {
        requireAppScope(ctx.state.principal, APP_SCOPE_OF_ENTITY[body.entity_type]);
        if (!extensionAgrees(body.filename, body.content_type)) {
          throw fieldError('filename', 'extension_mismatch', `the extension does not match content_type ${body.content_type}`);
        }
        const media = await insertMedia(deps.db, {
          ownerId: ctx.state.principal!.userId,
          entityType: body.entity_type,
          filename: body.filename,
          contentType: body.content_type,
          ttlMs: deps.uploadUrlTtlMs,
        });
        const expiresAt = new Date(media.upload_expires_at);
        ctx.set('Location', `/v1/media/${media.id}`);
        sendData(
          ctx,
          {
            media_id: media.id,
            upload_url: await deps.storage.uploadUrl({ mediaId: media.id, contentType: media.content_type, expiresAt }),
            upload_method: 'PUT',
            upload_headers: { 'Content-Type': media.content_type },
            expires_at: media.upload_expires_at,
            max_size_bytes: deps.maxBytes,
          },
          201,
        );
      },
    }),
    defineRoute({
      ...base,
      scope: 'write:petitions',
      method: 'post',
      path: '/v1/media/confirm',
      operationId: 'confirmMediaUpload',
      permission: 'write',
      summary: 'Confirm an upload',
      description: 'Confirm an upload: checks its size and starts processing (the media-<id> workflow).',
      body: ConfirmRequest,
      responses: { 200: { description: 'Confirmed; follow its status at GET /v1/media/{id}', schema: MediaEnvelope } },
      async handler(ctx, { body }) {
        const media = await findMedia(deps.db, ctx.state.principal!.userId, body.media_id);
        // An app with write:petitions must not confirm an avatar or logo the user started elsewhere.
        if (media) requireAppScope(ctx.state.principal, APP_SCOPE_OF_ENTITY[media.entity_type as EntityType]);
        sendData(ctx, toMedia(await confirmUpload(deps, ctx.state.principal!.userId, body)));
      },
    }),
    defineRoute({
      ...base,
      scope: 'read:petitions',
      method: 'get',
      path: '/v1/media/:id',
      operationId: 'getMedia',
      permission: 'read',
      summary: 'Get an upload',
      description: 'One of your uploads: pending_upload, uploaded, processing, ready (with its variants) or failed (with the reason).',
      params: MediaParams,
      responses: { 200: { description: 'The upload', schema: MediaEnvelope } },
      async handler(ctx, { params }) {
        const media = await findMedia(deps.db, ctx.state.principal!.userId, params.id);
        assertThat(media, 'not-found', `You have no upload ${params.id}.`);
        sendData(ctx, toMedia(media));
      },
    }),
    ...createLocalMediaRoutes({ ...deps, signingKey: config.media.signingKey }),
  ];
}
