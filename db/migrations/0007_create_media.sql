-- Uploaded images. A row is made when an upload URL is handed out and moves through
-- pending_upload → uploaded → processing → ready | failed. Only the owner sees the row; the
-- variants it lists are public once ready. The original (with whatever EXIF it carried) is never
-- served and is deleted once the variants exist.
CREATE TABLE media (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  entity_type text NOT NULL,
  -- What the processed image is attached to (a petition, a user…); given at confirm.
  entity_id uuid,
  filename text NOT NULL,
  content_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending_upload',
  size_bytes bigint,
  width integer,
  height integer,
  -- [{name, url, width, height, bytes}] of the stored WebP variants.
  variants jsonb NOT NULL DEFAULT '[]'::jsonb,
  failure_reason text,
  upload_expires_at timestamptz NOT NULL,
  -- Set once: a second confirm finds it and starts nothing.
  confirmed_at timestamptz,
  processed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT media_entity_type_valid CHECK (entity_type IN ('petition_image', 'petition_update_image', 'user_avatar', 'org_logo', 'org_cover')),
  CONSTRAINT media_content_type_valid CHECK (content_type IN ('image/jpeg', 'image/png', 'image/webp', 'image/gif')),
  CONSTRAINT media_status_valid CHECK (status IN ('pending_upload', 'uploaded', 'processing', 'ready', 'failed')),
  CONSTRAINT media_filename_length CHECK (char_length(filename) BETWEEN 1 AND 255)
);
CREATE INDEX media_owner_created_idx ON media (owner_id, created_at DESC, id DESC);
