import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { createCursorCodec, paginate } from '../../../core/pagination/keyset.ts';
import { DomainError } from '../../../core/errors/domain-error.ts';

describe('keyset cursors (core/pagination/keyset.ts)', () => {
  const codec = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String()]), 'keyset-test:plain');

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
      expect(() => codec.decode(cursor))
        .to.throw(DomainError)
        .with.property('kind', 'invalid-cursor');
    });
  }

  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const tagged = (tag: string, position: unknown) => encode({ t: tag, p: position });
  for (const [label, cursor] of [
    ['year 0000 in a date', tagged('keyset-test:plain', ['0000-01-01T00:00:00.000Z', 'abc'])],
    ['a NUL byte inside a decoded value', tagged('keyset-test:plain', ['2026-01-01T00:00:00.000Z', 'a\u0000b'])],
    ['characters outside base64url', 'abc*def'],
    ['a NUL byte', 'abc\u0000'],
    ['an over-long cursor', 'A'.repeat(5000)],
    ['an empty cursor', ''],
  ] as const) {
    it(`refuses ${label} as an invalid cursor`, () => {
      expect(() => codec.decode(cursor))
        .to.throw(DomainError)
        .with.property('kind', 'invalid-cursor');
    });
  }

  it('refuses a cursor with a stray character appended, which a base64 decoder would silently drop', () => {
    const cursor = codec.encode(['2026-01-01T00:00:00.000Z', 'abc']);
    for (const tampered of [`${cursor}x`, `${cursor}A`]) {
      expect(() => codec.decode(tampered))
        .to.throw(DomainError)
        .with.property('kind', 'invalid-cursor');
    }
  });

  it('refuses numbers beyond what the column holds: 2^63 and 1e308 for an integer key', () => {
    const counted = createCursorCodec(Type.Tuple([Type.Integer({ minimum: 0 }), Type.String()]), 'keyset-test:counted');
    expect(counted.decode(tagged('keyset-test:counted', [5, 'x']))).to.deep.equal([5, 'x']);
    for (const value of [2 ** 63, 1e308]) {
      expect(() => counted.decode(tagged('keyset-test:counted', [value, 'x'])))
        .to.throw(DomainError)
        .with.property('kind', 'invalid-cursor');
    }
  });

  it('refuses a second list under a tag already taken', () => {
    expect(() => createCursorCodec(Type.Tuple([Type.String()]), 'keyset-test:plain')).to.throw(/share the cursor tag/);
  });

  it('binds a tagged cursor to its list and sort', () => {
    const recent = createCursorCodec(Type.Tuple([Type.String()]), 'things:recent');
    const popular = createCursorCodec(Type.Tuple([Type.String()]), 'things:popular');
    const cursor = recent.encode(['a']);
    expect(recent.decode(cursor)).to.deep.equal(['a']);
    expect(() => popular.decode(cursor))
      .to.throw(DomainError)
      .with.property('kind', 'invalid-cursor');
    expect(() => recent.decode(encode(['a'])))
      .to.throw(DomainError)
      .with.property('kind', 'invalid-cursor');
  });

  it('trims the look-ahead row and points next_cursor at the last row kept', () => {
    const { page, pagination } = paginate([1, 2, 3], 2, (row) => `c${row}`);
    expect(page).to.deep.equal([1, 2]);
    expect(pagination).to.deep.equal({ next_cursor: 'c2', has_more: true });
    expect(paginate([1], 2, String).pagination).to.deep.equal({ next_cursor: null, has_more: false });
  });
});
