// Shapes of media uploads on the wire.
import { Type, type Static } from '@sinclair/typebox';
import type { MediaRow } from '../../core/media/queries.ts';
import { CONTENT_TYPES, ENTITY_TYPES, MEDIA_STATUSES, type ImageContentType } from '../../core/media/media-types.ts';

import { Meta } from '../http/envelopes.ts';
const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);

export const UploadUrlRequest = Type.Object(
  {
    entity_type: Type.Union(ENTITY_TYPES.map((value) => Type.Literal(value))),
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    content_type: Type.Union(CONTENT_TYPES.map((value) => Type.Literal(value))),
  },
  { additionalProperties: false },
);
export type UploadUrlRequest = Static<typeof UploadUrlRequest>;

export const UploadUrlEnvelope = Type.Object({
  data: Type.Object({
    media_id: Uuid,
    upload_url: Type.String({ format: 'uri', description: 'PUT the file here, with the declared Content-Type, before expires_at.' }),
    upload_method: Type.Literal('PUT'),
    upload_headers: Type.Record(Type.String(), Type.String()),
    expires_at: Timestamp,
    max_size_bytes: Type.Integer(),
  }),
  meta: Meta,
});

export const ConfirmRequest = Type.Object({ media_id: Uuid, entity_id: Type.Optional(Uuid) }, { additionalProperties: false });

const Variant = Type.Object({ name: Type.String(), url: Type.String({ format: 'uri' }), width: Type.Integer(), height: Type.Integer(), bytes: Type.Integer() });

export const Media = Type.Object({
  id: Uuid,
  entity_type: Type.String(),
  entity_id: Nullable(Uuid),
  filename: Type.String(),
  content_type: Type.String(),
  status: Type.Union(MEDIA_STATUSES.map((value) => Type.Literal(value))),
  size_bytes: Nullable(Type.Integer()),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
  variants: Type.Array(Variant),
  failure_reason: Nullable(Type.String()),
  upload_expires_at: Timestamp,
  created_at: Timestamp,
  processed_at: Nullable(Timestamp),
});
export const MediaEnvelope = Type.Object({ data: Media, meta: Meta });
export const MediaParams = Type.Object({ id: Uuid });
export const UploadParams = Type.Object({ id: Uuid });
export const UploadQuery = Type.Object({ expires: Type.Integer({ minimum: 0 }), signature: Type.String({ minLength: 1, maxLength: 100 }) });
export const VariantFileParams = Type.Object({ id: Uuid, file: Type.String({ pattern: '^[a-z0-9_]{1,32}\\.webp$' }) });
export const UploadReceipt = Type.Object({ data: Type.Object({ media_id: Uuid, size_bytes: Type.Integer(), status: Type.Literal('uploaded') }), meta: Meta });

export function toMedia(row: MediaRow) {
  return {
    id: row.id,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    filename: row.filename,
    content_type: row.content_type,
    status: row.status,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    variants: row.variants,
    failure_reason: row.failure_reason,
    upload_expires_at: row.upload_expires_at,
    created_at: row.created_at,
    processed_at: row.processed_at,
  };
}

const EXTENSION_TYPES: Record<string, ImageContentType> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

/** False when the filename's extension names another image type than the one declared. */
export function extensionAgrees(filename: string, contentType: ImageContentType): boolean {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  const named = extension ? EXTENSION_TYPES[extension] : undefined;
  return named === undefined || named === contentType;
}
