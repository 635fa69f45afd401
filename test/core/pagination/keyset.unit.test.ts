import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { createCursorCodec, paginate } from '../../../core/pagination/keyset.ts';
import { DomainError } from '../../../core/errors/domain-error.ts';

describe('keyset cursors (core/pagination/keyset.ts)', () => {
  const codec = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String()]));

  it('round-trips a position as URL-safe base64', () => {
    const cursor = codec.encode(['2026-01-01T00:00:00.000Z', 'abc']);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor)).to.deep.equal(['2026-01-01T00:00:00.000Z', 'abc']);
  });

  for (const [label, cursor] of [
    ['garbage', '!!!'],
    ['valid base64 of non-JSON', Buffer.from('not json').toString('base64url')],
    ['JSON of the wrong shape', Buffer.from('{"a":1}').toString('base64url')],
  ]) {
    it(`refuses ${label} as an invalid cursor`, () => {
      expect(() => codec.decode(cursor)).to.throw(DomainError).with.property('kind', 'invalid-cursor');
    });
  }

  it('trims the look-ahead row and points next_cursor at the last row kept', () => {
    const { page, pagination } = paginate([1, 2, 3], 2, (row) => `c${row}`);
    expect(page).to.deep.equal([1, 2]);
    expect(pagination).to.deep.equal({ next_cursor: 'c2', has_more: true });
    expect(paginate([1], 2, String).pagination).to.deep.equal({ next_cursor: null, has_more: false });
  });
});
