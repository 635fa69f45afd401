// Every list's cursor decoder gets the same hostile cursors. Loading the app's module graph makes every list's codec (each is made by core/pagination/keyset.ts
// and registered under its tag), so a list added later is attacked here without anyone listing it. Each hostile cursor is built from a well-formed one of that
// very list (its tag, its shape) with one thing wrong, so it reaches the check it is aimed at instead of being refused for a simpler reason first.
import { expect } from 'chai';
import type { TSchema } from '@sinclair/typebox';
import '../../../api/app.ts';
import { cursorCodecs, type CursorCodec } from '../../../core/pagination/keyset.ts';
import { DomainError } from '../../../core/errors/domain-error.ts';

type Schema = { type?: string; format?: string; items?: Schema[]; anyOf?: Schema[]; const?: unknown };

/** A value the schema accepts: the position a real page could end on. */
function sample(schema: Schema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) return sample(schema.anyOf[0]!);
  if (schema.type === 'array') return (schema.items ?? []).map(sample);
  if (schema.type === 'integer') return 7;
  if (schema.type === 'number') return 7.5;
  if (schema.format === 'date-time') return '2026-03-01T12:00:00.123456Z';
  if (schema.format === 'uuid') return '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
  return 'Lyon|Auvergne-Rhône-Alpes|FR';
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The position with slot `index` replaced. */
const replaced = (position: unknown[], index: number, value: unknown) => position.map((each, at) => (at === index ? value : each));

function hostileCursors(codec: CursorCodec<TSchema>, others: CursorCodec<TSchema>[]): [string, string][] {
  const slots = (codec.positionSchema as Schema).items ?? [];
  const position = sample(codec.positionSchema as Schema) as unknown[];
  const tagged = (value: unknown) => encode({ t: codec.tag, p: value });
  const cursors: [string, string][] = [
    ['a raw NUL byte', 'abc\u0000'],
    ['a percent-encoded NUL', '%00'],
    ['characters outside base64url', 'abc*def'],
    ['base64 with padding', `${codec.encode(position as never)}==`],
    ['an empty cursor', ''],
    ['a huge cursor', 'A'.repeat(100_000)],
    ['a well-formed cursor grown past the length limit', tagged(position.map((value) => (typeof value === 'string' ? value.padEnd(2_000, 'x') : value)))],
    ['base64 of something that is not JSON', Buffer.from('not json').toString('base64url')],
    ['the position without its list tag', encode(position)],
    ['the position under an unknown tag', encode({ t: 'nothing', p: position })],
    ['an object instead of the position', tagged({ a: 1 })],
    ['an empty position', tagged([])],
    ['the position with one value more', tagged([...position, 'x'])],
    ['the position with one value fewer', tagged(position.slice(1))],
    ['null', tagged(null)],
  ];
  for (const other of others)
    cursors.push([`a well-formed cursor of another list (${other.tag})`, other.encode(sample(other.positionSchema as Schema) as never)]);
  slots.forEach((slot, index) => {
    const where = `in value ${index + 1}`;
    if (typeof position[index] === 'string') {
      cursors.push([`a NUL byte ${where}`, tagged(replaced(position, index, `${String(position[index])}\u0000`))]);
      cursors.push([`a lone NUL ${where}`, tagged(replaced(position, index, '\u0000'))]);
    }
    if (slot.format === 'uuid') cursors.push([`an invalid uuid ${where}`, tagged(replaced(position, index, 'not-a-uuid'))]);
    if (slot.format === 'date-time') {
      for (const time of ['0000-01-01T00:00:00Z', '2026-13-45T99:00:00Z', 'yesterday'])
        cursors.push([`the timestamp ${time} ${where}`, tagged(replaced(position, index, time))]);
    }
    // A float8 column holds 2^63; an int4 or int8 one does not, nor a fraction.
    const outOfRange = slot.type === 'integer' ? [2 ** 63, 1e308, 1.5, '7'] : slot.type === 'number' ? [1e308, -1e308, '7'] : [];
    for (const value of outOfRange) cursors.push([`the number ${JSON.stringify(value)} ${where}`, tagged(replaced(position, index, value))]);
    cursors.push([`an object ${where}`, tagged(replaced(position, index, { $gt: '' }))]);
  });
  return cursors;
}

describe('every list’s cursor decoder (core/pagination/keyset.ts)', () => {
  const codecs = cursorCodecs();

  it('is made by the keyset module for every list, the signature map and app authorizations among them', () => {
    const tags = codecs.map((codec) => codec.tag);
    expect(tags).to.include.members(['signatures:geo', 'oauth-authorizations', 'signatures', 'petitions:recent', 'notifications', 'audit-logs']);
    expect(new Set(tags).size).to.equal(tags.length);
  });

  for (const codec of codecs) {
    describe(codec.tag, () => {
      it('decodes the cursor it issued', () => {
        const position = sample(codec.positionSchema as Schema);
        expect(codec.decode(codec.encode(position as never))).to.deep.equal(position);
      });

      it('refuses every hostile cursor as 400 invalid-cursor, before any query', () => {
        for (const [label, cursor] of hostileCursors(
          codec,
          codecs.filter((other) => other !== codec),
        )) {
          expect(() => codec.decode(cursor), label)
            .to.throw(DomainError)
            .with.property('kind', 'invalid-cursor');
        }
      });
    });
  }
});
