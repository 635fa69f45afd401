// GET /v1/search/suggest: titles of publicly listed petitions for a typed prefix, from a trigram index on the folded title. word_similarity compares the prefix
// with the closest stretch of each title, so "libr" finds "Keep the library open" and one wrong letter in a word of five or more letters still scores at least
// 0.5 (at most three of its six trigrams change): the threshold below sits under that. Ordered by similarity, then signatures.
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { boundedSearch, type SearchDependencies } from './bounded.ts';
import { PUBLICLY_LISTED } from './publicly-listed.ts';

const WORD_SIMILARITY_THRESHOLD = 0.45;

export const Suggestion = z.object({ title: z.string(), slug: z.string(), signature_count: z.number() });
export type Suggestion = z.infer<typeof Suggestion>;

export function suggestTitles(deps: SearchDependencies, prefix: string, limit: number): Promise<readonly Suggestion[]> {
  return boundedSearch(deps, async (tx) => {
    await tx.query(
      sql.type(z.object({ set_config: z.string() }))`SELECT set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY_THRESHOLD)}, true)`,
    );
    return tx.any(sql.type(Suggestion)`
      SELECT p.title, p.slug, COALESCE((SELECT sum(sc.count) FROM signature_counters sc WHERE sc.petition_id = p.id), 0)::bigint AS signature_count
      FROM petitions p
      WHERE ${PUBLICLY_LISTED} AND rally_search_fold(${prefix}) <% p.search_title
      ORDER BY word_similarity(rally_search_fold(${prefix}), p.search_title) DESC, p.signature_count DESC, p.id DESC
      LIMIT ${limit}
    `);
  });
}
