-- The public petition page and oEmbed look up the processed variants behind a petition's image_url
-- by the petition they are attached to.
CREATE INDEX media_petition_image_idx ON media (entity_id, processed_at DESC) WHERE entity_type = 'petition_image' AND status = 'ready';
