// SQL for media rows, always read with the owner's id: one user never sees another's uploads.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export const MediaVariant = z.object({ name: z.string(), url: z.string(), width: z.number(), height: z.number(), bytes: z.number() });
export type MediaVariant = z.infer<typeof MediaVariant>;

export const MediaRow = z.object({
  id: z.string().uuid(),
  owner_id: z.string().uuid(),
  entity_type: z.enum(['petition_image', 'petition_update_image', 'user_avatar', 'org_logo', 'org_cover']),
  entity_id: z.string().uuid().nullable(),
  filename: z.string(),
  content_type: z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/gif']),
  status: z.enum(['pending_upload', 'uploaded', 'processing', 'ready', 'failed']),
  size_bytes: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  variants: z.array(MediaVariant),
  failure_reason: z.string().nullable(),
  upload_expires_at: z.string(),
  confirmed_at: z.string().nullable(),
  created_at: z.string(),
  processed_at: z.string().nullable(),
});
export type MediaRow = z.infer<typeof MediaRow>;

export const MEDIA_COLUMNS = sql.fragment`
  id, owner_id, entity_type, entity_id, filename, content_type, status, size_bytes, width, height, variants,
  failure_reason, upload_expires_at, confirmed_at, created_at, processed_at`;

export function insertMedia(db: CommonQueryMethods, input: { ownerId: string; entityType: string; filename: string; contentType: string; ttlMs: number }) {
  return db.one(sql.type(MediaRow)`
    INSERT INTO media (owner_id, entity_type, filename, content_type, upload_expires_at)
    VALUES (${input.ownerId}, ${input.entityType}, ${input.filename}, ${input.contentType}, now() + make_interval(secs => ${input.ttlMs / 1000}))
    RETURNING ${MEDIA_COLUMNS}
  `);
}

export function findMedia(db: CommonQueryMethods, ownerId: string, id: string, options: { lock?: boolean } = {}) {
  return db.maybeOne(sql.type(MediaRow)`
    SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ${id} AND owner_id = ${ownerId}
    ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}
  `);
}

/** The upload route knows no owner: the signed URL is its authority. */
export function findMediaForUpload(db: CommonQueryMethods, id: string, options: { lock?: boolean } = {}) {
  return db.maybeOne(sql.type(MediaRow)`
    SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ${id} ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}
  `);
}

export function markUploaded(db: CommonQueryMethods, id: string, sizeBytes: number) {
  return db.query(sql.typeAlias('void')`
    UPDATE media SET status = 'uploaded', size_bytes = ${sizeBytes}, updated_at = now() WHERE id = ${id} AND confirmed_at IS NULL
  `);
}

export function markConfirmed(db: CommonQueryMethods, id: string, input: { sizeBytes: number; entityId: string | null }) {
  return db.one(sql.type(MediaRow)`
    UPDATE media SET status = 'uploaded', size_bytes = ${input.sizeBytes}, entity_id = ${input.entityId}, confirmed_at = now(), updated_at = now()
    WHERE id = ${id}
    RETURNING ${MEDIA_COLUMNS}
  `);
}

export function markTooLarge(db: CommonQueryMethods, id: string, sizeBytes: number, maxBytes: number) {
  return db.query(sql.typeAlias('void')`
    UPDATE media SET status = 'failed', size_bytes = ${sizeBytes}, updated_at = now(),
      failure_reason = ${`The file is ${sizeBytes} bytes; at most ${maxBytes} are accepted.`}
    WHERE id = ${id}
  `);
}
