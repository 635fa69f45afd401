// Shapes of GET /v1/petitions/{id}/analytics and GET /v1/analytics/stats.
import { Type } from '@sinclair/typebox';
import { GRANULARITIES } from '../../core/analytics/petition-analytics.ts';
import { Meta } from '../http/envelopes.ts';
import { LimitQuery } from '../http/pagination.ts';

const DateQuery = (description: string) => Type.Optional(Type.String({ format: 'date', description }));
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const PetitionAnalyticsParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const PetitionAnalyticsQuery = Type.Object(
  {
    start_date: DateQuery('First day (UTC), default the petition’s first day within two years.'),
    end_date: DateQuery('Last day (UTC), default today; at most two years after start_date.'),
    granularity: Type.Union(
      GRANULARITIES.map((value) => Type.Literal(value)),
      { default: 'day' },
    ),
  },
  { additionalProperties: false },
);

/** Signatures from one country (null: unknown). */
export const CountrySignatures = Type.Object({ country: Nullable(Type.String()), signatures: Type.Integer() });

export const PetitionAnalytics = Type.Object({
  data: Type.Object({
    petition_id: Type.String({ format: 'uuid' }),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    granularity: Type.String(),
    signature_count: Type.Integer({ description: 'All signatures folded so far.' }),
    series: Type.Array(Type.Object({ period_start: Type.String({ format: 'date' }), signatures: Type.Integer(), cumulative: Type.Integer() }), {
      description: 'One entry per period, empty ones included; cumulative counts every signature before the period’s end.',
    }),
    geography: Type.Object(
      {
        countries: Type.Array(CountrySignatures),
        cities: Type.Array(Type.Object({ city: Type.String(), country: Nullable(Type.String()), signatures: Type.Integer() })),
      },
      { description: 'All-time top 20 each.' },
    ),
    traffic_sources: Type.Array(Type.Object({ source: Type.String(), signatures: Type.Integer() }), {
      description: 'The sign request’s `source`, else share:<sharer slug> for a ?ref= link, else direct. All-time top 20.',
    }),
    page_views: Type.Integer({ description: 'Views of the petition (GET /v1/petitions/{slug} and the page /p/{slug}) in the range, as flushed so far.' }),
    widget_views: Type.Integer({ description: 'Views of its embed widget (/embed/p/{slug}) in the range, as flushed so far.' }),
    as_of: Nullable(Type.String({ format: 'date-time', description: 'When the rollups were last folded.' })),
  }),
  meta: Meta,
});

export const StatsQuery = Type.Object(
  {
    petition_id: Type.Optional(Type.String({ format: 'uuid' })),
    start_date: DateQuery('First day (UTC), default 29 days before end_date.'),
    end_date: DateQuery('Last day (UTC), default today.'),
    limit: LimitQuery({ max: 100, default: 10 }),
  },
  { additionalProperties: false },
);

export const PlatformStats = Type.Object({
  data: Type.Object({
    petition_id: Nullable(Type.String({ format: 'uuid' })),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    daily: Type.Array(
      Type.Object({ date: Type.String({ format: 'date' }), signatures: Type.Integer(), new_petitions: Type.Integer(), victories: Type.Integer() }),
    ),
    trending: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        slug: Type.String(),
        title: Type.String(),
        signature_count: Type.Integer(),
        trending_score: Type.Number(),
      }),
    ),
    geography: Type.Array(CountrySignatures),
  }),
  meta: Meta,
});
