// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs
// what page 1 costs. Cursors are opaque to clients: one that does not decode to the expected shape
// is a 400 invalid-cursor, never a 500.
import { Type } from '@sinclair/typebox';
import { paginate } from '../../core/pagination/keyset.ts';
import { sendList, type RallyContext } from './context.ts';

// No pattern or length here: whatever a client sends as a cursor is the codec's to refuse, so every
// bad cursor is the same 400 invalid-cursor rather than sometimes a 422.
export const CursorQuery = Type.String({ description: 'Opaque cursor from `pagination.next_cursor` of the previous page.' });

export function LimitQuery(options: { max?: number; default?: number } = {}) {
  return Type.Integer({ minimum: 1, maximum: options.max ?? 100, default: options.default ?? 20, description: 'Page size.' });
}

export const PaginationSchema = Type.Object({
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

/** A list route's page: the cursor and page size its query asked for. */
export type PageQuery = { cursor?: string | undefined; limit: number };

/**
 * One keyset list, as its route answers it: the rows after a position (limit + 1 of them: the query
 * takes its ORDER BY and LIMIT from keysetPage), each row's position, and how a row is shown.
 */
export type KeysetList<Position extends readonly unknown[] | [], Row> = {
  /** The list's codec (core/pagination/keyset.ts: createCursorCodec), whose positions are tuples. */
  cursor: { encode(position: Position): string; decode(cursor: string | undefined): Position | undefined };
  rows: (after: Position | undefined, limit: number) => Promise<readonly Row[]>;
  position: (row: Row) => NoInfer<Position>;
  present: (row: Row) => unknown;
};

/**
 * Answers a list request: the cursor decoded (one this list did not issue is a 400 before any query),
 * one page read, the extra row turned into `pagination.next_cursor`, the page presented and sent.
 */
export async function sendKeysetList<Position extends readonly unknown[] | [], Row>(
  ctx: RallyContext,
  query: PageQuery,
  list: KeysetList<Position, Row>,
): Promise<void> {
  const rows = await list.rows(list.cursor.decode(query.cursor), query.limit);
  const { page, pagination } = paginate(rows, query.limit, (row) => list.cursor.encode(list.position(row)));
  sendList(
    ctx,
    page.map((row) => list.present(row)),
    pagination,
  );
}
