// The image work of media processing, free of storage and database: what a file really is (from its first bytes, whatever its name or declared type says), and
// the WebP variants each kind of upload needs. Output carries no metadata at all: sharp drops EXIF (GPS included), XMP and ICC unless asked to keep them, and
// this module never asks. Orientation is applied to the pixels first, so a photo taken sideways still shows upright once its EXIF is gone.
import type { default as Sharp } from 'sharp';
import type { EntityType, ImageContentType } from '../core/media/media-types.ts';

/** The MIME type announced by a file's magic bytes; null for anything that is not one of ours. */
export function sniffImageType(head: Uint8Array): ImageContentType | null {
  const startsWith = (bytes: number[], offset = 0) => bytes.every((byte, index) => head[offset + index] === byte);
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'image/gif';
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

export type VariantPlan = { name: string; width: number; height?: number; fit: 'inside' | 'cover' };

// Petition images: a large one for the page and a small one for cards and lists. Avatars: always a
// 256px square, cropped around the most interesting part. Logos are never cropped.
export const VARIANT_PLANS: Record<EntityType, VariantPlan[]> = {
  petition_image: [
    { name: 'large', width: 1200, fit: 'inside' },
    { name: 'small', width: 400, fit: 'inside' },
  ],
  petition_update_image: [
    { name: 'large', width: 1200, fit: 'inside' },
    { name: 'small', width: 400, fit: 'inside' },
  ],
  user_avatar: [{ name: 'avatar', width: 256, height: 256, fit: 'cover' }],
  org_logo: [
    { name: 'logo', width: 512, height: 512, fit: 'inside' },
    { name: 'logo_small', width: 128, height: 128, fit: 'inside' },
  ],
  org_cover: [{ name: 'cover', width: 1500, height: 500, fit: 'cover' }],
};

/** The variant whose address is written onto the entity (petitions.image_url, users.avatar_url). */
export const PRIMARY_VARIANT: Record<EntityType, string> = {
  petition_image: 'large',
  petition_update_image: 'large',
  user_avatar: 'avatar',
  org_logo: 'logo',
  org_cover: 'cover',
};

export type RenderedVariant = { name: string; body: Buffer; width: number; height: number };

// sharp (libvips, tens of MB resident) loads on the first image, not when the worker starts: most
// workers spend most of their life without processing one.
let loaded: Promise<typeof Sharp> | undefined;
const loadSharp = () => (loaded ??= import('sharp').then((module) => module.default));

// Truncated files fail instead of decoding into half a grey picture; harmless warnings pass.
const DECODE_OPTIONS = { failOn: 'truncated' } as const;

/** Reads dimensions from the header; throws when sharp cannot make sense of the file. */
export async function readDimensions(original: Buffer): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const { width, height, orientation } = await sharp(original, DECODE_OPTIONS).metadata();
  if (!width || !height) throw new Error('the image has no dimensions');
  // EXIF orientations 5 to 8 turn the picture a quarter: the displayed size is the other way round.
  return orientation && orientation >= 5 ? { width: height, height: width } : { width, height };
}

export async function renderVariant(original: Buffer, plan: VariantPlan): Promise<RenderedVariant> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(original, DECODE_OPTIONS)
    .rotate()
    .resize({ width: plan.width, height: plan.height, fit: plan.fit, position: sharp.strategy.attention, withoutEnlargement: plan.fit === 'inside' })
    .webp({ quality: 82 })
    .toBuffer({ resolveWithObject: true });
  return { name: plan.name, body: data, width: info.width, height: info.height };
}
