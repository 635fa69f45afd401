// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs
// what page 1 costs. Cursors are opaque to clients: one that does not decode to the expected shape
// is a 400 invalid-cursor, never a 500.
import { Type } from '@sinclair/typebox';

export const CursorQuery = Type.String({ minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description: 'Opaque cursor from `pagination.next_cursor` of the previous page.' });

export function LimitQuery(options: { max?: number; default?: number } = {}) {
  return Type.Integer({ minimum: 1, maximum: options.max ?? 100, default: options.default ?? 20, description: 'Page size.' });
}

export const PaginationSchema = Type.Object({
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
