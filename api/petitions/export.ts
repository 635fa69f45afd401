// GET /v1/petitions/export: a page of petitions, or with includeSignatures=true a page of signatures joined with their petitions (core/petitions/export.ts says
// which), as CSV or JSON. A page (at most 1000 rows) is read in one query, because its next cursor travels in headers, before the body; the body is then
// streamed. At most 10 exports per minute per user, shared by every API process.
import type { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { exportPetitionPage, exportSignaturePage, PETITION_EXPORT_COLUMNS, SIGNATURE_EXPORT_COLUMNS } from '../../core/petitions/export.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import type { RallyContext } from '../http/context.ts';
import { exportStream } from '../http/export-stream.ts';
import { CursorQuery, LimitQuery } from '../http/pagination.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { RallyError } from '../http/problem.ts';
import { requireAppScope } from '../http/app-scopes.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { Status } from './schemas.ts';

const ExportQuery = Type.Object(
  {
    format: Type.Union([Type.Literal('csv'), Type.Literal('json')], { default: 'json' }),
    status: Type.Optional(Status),
    categoryId: Type.Optional(Type.String({ format: 'uuid' })),
    creatorId: Type.Optional(Type.String({ format: 'uuid' })),
    includeSignatures: Type.Boolean({ default: false, description: 'One row per signature, joined with its petition.' }),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery({ max: 1000, default: 100 }),
  },
  { additionalProperties: false },
);
type ExportQuery = Static<typeof ExportQuery>;

// The kind is part of the position, so a cursor of one kind of export is refused by the other.
const exportCursor = createCursorCodec(
  Type.Tuple([Type.Union([Type.Literal('petitions'), Type.Literal('signatures')]), Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]),
  'exports',
);

export function createPetitionExportRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/export',
      operationId: 'exportPetitions',
      tag: 'Petitions',
      auth: 'required',
      scope: 'read:petitions',
      permission: 'read',
      rateLimit: 'export',
      summary: 'Export petitions',
      description: 'A page of petitions (or of their signatures) as CSV or JSON; the next page is named by the X-Next-Cursor and Link headers. 10 per minute.',
      query: ExportQuery,
      responses: { 200: { description: 'The rows, streamed', contentType: 'text/csv' }, 429: { description: 'More than 10 exports in a minute' } },
      async handler(ctx, { query }) {
        const principal = ctx.state.principal!;
        const callerId = principal.userId;
        const kind = query.includeSignatures ? 'signatures' : 'petitions';
        // Signers' names, emails and cities: an app needs read:signatures besides the route's read:petitions.
        if (kind === 'signatures') requireAppScope(principal, 'read:signatures');
        const after = exportCursor.decode(query.cursor);
        if (after && after[0] !== kind)
          throw new RallyError('invalid-cursor', `This cursor belongs to an export of ${after[0]}; request the first page again without a cursor.`);
        const pageRequest = { after: after && ([after[1], after[2]] as const), limit: query.limit };
        const viewer = viewerOf(principal);
        if (kind === 'signatures') {
          const rows = await exportSignaturePage(deps.db, viewer, query, pageRequest);
          const { page, pagination } = paginate(rows, query.limit, (row) => exportCursor.encode([kind, row.signed_at, row.signature_id]));
          sendPage(ctx, `petition-signatures.${query.format}`, pagination.next_cursor, exportStream(query.format, SIGNATURE_EXPORT_COLUMNS, singleBatch(page)));
        } else {
          const rows = await exportPetitionPage(deps.db, viewer, query, pageRequest);
          const { page, pagination } = paginate(rows, query.limit, (row) => exportCursor.encode([kind, row.created_at, row.id]));
          sendPage(ctx, `petitions.${query.format}`, pagination.next_cursor, exportStream(query.format, PETITION_EXPORT_COLUMNS, singleBatch(page)));
        }
      },
    }),
  ];
}

function sendPage(ctx: RallyContext, filename: string, nextCursor: string | null, body: Readable): void {
  if (nextCursor) {
    const next = new URLSearchParams(ctx.querystring);
    next.set('cursor', nextCursor);
    ctx.set('X-Next-Cursor', nextCursor);
    ctx.set('Link', `<${ctx.path}?${next.toString()}>; rel="next"`);
  }
  ctx.type = filename.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.body = body;
}

async function* singleBatch<Row>(rows: readonly Row[]): AsyncIterable<readonly Row[]> {
  yield rows;
}
