// What an upload can be: what it is for, which image formats are taken, and the states it goes
// through from the upload URL to its processed variants.

export const ENTITY_TYPES = ['petition_image', 'petition_update_image', 'user_avatar', 'org_logo', 'org_cover'] as const;
export const CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
export const MEDIA_STATUSES = ['pending_upload', 'uploaded', 'processing', 'ready', 'failed'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
export type ImageContentType = (typeof CONTENT_TYPES)[number];
