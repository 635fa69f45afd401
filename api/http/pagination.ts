// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs
// what page 1 costs. Cursors are opaque to clients: one that does not decode to the expected shape
// is a 400 invalid-cursor, never a 500.
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { addFormats } from './validation.ts';
import { RallyError } from './problem.ts';

export const CursorQuery = Type.String({ minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description: 'Opaque cursor from `pagination.next_cursor` of the previous page.' });

export function LimitQuery(options: { max?: number; default?: number } = {}) {
  return Type.Integer({ minimum: 1, maximum: options.max ?? 100, default: options.default ?? 20, description: 'Page size.' });
}

export const PaginationSchema = Type.Object({
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

const cursorAjv = addFormats(new Ajv({ strict: false }));

export type CursorCodec<S extends TSchema> = {
  encode(position: Static<S>): string;
  decode(cursor: string | undefined): Static<S> | undefined;
};

/** A codec for one list's sort key, e.g. `Type.Tuple([Type.String({format:'date-time'}), Type.String()])`. */
export function createCursorCodec<S extends TSchema>(positionSchema: S): CursorCodec<S> {
  const check = cursorAjv.compile(positionSchema);
  return {
    encode: (position) => Buffer.from(JSON.stringify(position), 'utf8').toString('base64url'),
    decode(cursor) {
      if (cursor === undefined) return undefined;
      let position: unknown;
      try {
        position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        position = undefined;
      }
      if (!check(position)) {
        throw new RallyError('invalid-cursor', 'The cursor is not one this list issued. Request the first page again without a cursor.');
      }
      return position as Static<S>;
    },
  };
}

/** Fetch `limit + 1` rows, then call this: it trims the extra row and builds the pagination block. */
export function paginate<Row>(rows: readonly Row[], limit: number, positionOf: (row: Row) => string) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows.slice();
  const last = page.at(-1);
  return {
    page,
    pagination: { next_cursor: hasMore && last !== undefined ? positionOf(last) : null, has_more: hasMore },
  };
}
