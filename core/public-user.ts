// A user as others see them (a petition's creator, a signer who did not sign anonymously), read by
// petitions and signatures alike: here, above the aggregates, so neither imports users/ for it.
import { z } from 'zod';
import { sql } from '../db/sql.ts';

/** A user as others see them: the creator of a petition, a signer who did not sign anonymously. */
export const PublicUserRow = z.object({
  id: z.string(),
  display_name: z.string(),
  slug: z.string(),
  bio: z.string().nullable(),
  avatar_url: z.string().nullable(),
  petition_count: z.number(),
});

/** PublicUserRow as JSON, of the users row aliased `u`. */
export const PUBLIC_USER_JSON = sql.fragment`json_build_object('id', u.id, 'display_name', u.display_name, 'slug', u.slug, 'bio', u.bio,
  'avatar_url', u.avatar_url, 'petition_count', u.petition_count)`;
