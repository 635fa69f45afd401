// Shapes of GET /v1/search/petitions and GET /v1/search/suggest.
import { Type, type Static } from '@sinclair/typebox';
import { PUBLICLY_LISTED_STATUSES } from '../../core/search/publicly-listed.ts';
import { SEARCH_SORTS } from '../../core/search/petition-search.ts';
import { Meta } from '../http/envelopes.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { PetitionSummary } from '../petitions/schemas.ts';

export const PetitionSearchQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Web-search syntax: words, "a phrase", -excluded, or.' })),
    category: Type.Optional(Type.String({ format: 'uuid' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 code of the petition’s location.' })),
    status: Type.Optional(Type.Union(PUBLICLY_LISTED_STATUSES.map((status) => Type.Literal(status)))),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    sort: Type.Union(
      SEARCH_SORTS.map((sort) => Type.Literal(sort)),
      { default: 'relevance' },
    ),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery(),
  },
  { additionalProperties: false },
);
export type PetitionSearchQuery = Static<typeof PetitionSearchQuery>;

export const FacetValue = Type.Object({ value: Type.String(), count: Type.Integer() });
const FacetValues = Type.Array(FacetValue);

export const PetitionSearchResult = Type.Object({
  data: Type.Array(PetitionSummary),
  facets: Type.Object(
    { status: FacetValues, category: FacetValues, country: FacetValues, tags: FacetValues },
    {
      description: 'Matches per value, each counted without its own filter (category values are category ids).',
    },
  ),
  pagination: PaginationSchema,
  meta: Meta,
});

export const SuggestQuery = Type.Object(
  { q: Type.String({ minLength: 2, maxLength: 100, description: 'What was typed so far.' }), limit: LimitQuery({ max: 10, default: 5 }) },
  { additionalProperties: false },
);

export const SuggestResult = Type.Object({
  data: Type.Array(Type.Object({ title: Type.String(), slug: Type.String(), signature_count: Type.Integer() })),
  meta: Meta,
});
