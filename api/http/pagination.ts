// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs
// what page 1 costs. Cursors are opaque to clients: one that does not decode to the expected shape
// is a 400 invalid-cursor, never a 500.
import { Type } from '@sinclair/typebox';

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
