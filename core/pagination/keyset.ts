// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs
// what page 1 costs. Cursors are opaque to clients: one that does not decode to the list's own
// position shape is refused before any query runs.
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DomainError } from '../errors/domain-error.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const cursorAjv = new Ajv({ strict: false });
addFormats(cursorAjv);

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
        throw new DomainError('invalid-cursor', 'The cursor is not one this list issued. Request the first page again without a cursor.');
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
