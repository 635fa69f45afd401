// Readable, URL-safe slugs for petitions, organizations and keys: "Ada Lovelace" → "ada-lovelace"; a clash gets a short random suffix.
import { randomBytes } from 'node:crypto';
import { UniqueIntegrityConstraintViolationError } from 'slonik';

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

/** `digits` hex digits of suffix: six where a clash is rare (a second petition of one title), more where many rows share a name. */
export function withRandomSuffix(slug: string, digits = 6): string {
  const suffix = randomBytes(Math.ceil(digits / 2))
    .toString('hex')
    .slice(0, digits);
  return `${slug.slice(0, 59 - digits)}-${suffix}`;
}

const SLUG_ATTEMPTS = 6;

/**
 * Runs `insert` with `slug`, and again with a suffixed slug each time the unique `constraint` says
 * another row has it. Each attempt must be its own (sub)transaction: a clash aborts the statement.
 */
export async function withFreeSlug<T>(slug: string, constraint: string, insert: (slug: string) => Promise<T>): Promise<T> {
  for (let attempt = 1, candidate = slug; ; attempt += 1, candidate = withRandomSuffix(slug)) {
    try {
      return await insert(candidate);
    } catch (error) {
      if (!(error instanceof UniqueIntegrityConstraintViolationError) || error.constraint !== constraint || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}
