// Readable, URL-safe slugs for petitions, organizations and keys: "Ada Lovelace" → "ada-lovelace"; a clash gets a short random suffix.
import { randomBytes } from 'node:crypto';

export function slugify(text: string, maxLength = 60): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug || 'item';
}

export function withRandomSuffix(slug: string): string {
  return `${slug.slice(0, 53)}-${randomBytes(4).toString('hex').slice(0, 6)}`;
}
