import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { compileSerializer } from '../../../api/http/serializer.ts';
import { SignatureCreated, SignatureList } from '../../../api/signatures/schemas.ts';

const uuid = '7b0b8c56-4a39-4d5e-9a55-1f6f0e3f5c10';
const created = {
  data: { id: uuid, petition_id: uuid, user_id: uuid, is_anonymous: false, signature_count: 12, milestone_reached: true },
  meta: { request_id: 'req-1', timestamp: '2026-11-28T18:00:00.000Z' },
};

describe('compileSerializer (api/http/serializer.ts)', () => {
  it('writes an answer as JSON.stringify would, with only the properties its schema names', () => {
    const write = compileSerializer(SignatureCreated)!;
    const leaky = { ...created, data: { ...created.data, email: 'someone@example.org' }, debug: true };
    expect(JSON.parse(write(leaky)!)).to.deep.equal(created);
  });

  it('writes dates through their toJSON, skips absent optional properties and escapes strings', () => {
    const Shape = Type.Object({ at: Type.String(), note: Type.Optional(Type.String()), tags: Type.Array(Type.String()) });
    const write = compileSerializer(Shape)!;
    const at = new Date('2026-11-28T18:00:00.000Z');
    expect(write({ at, tags: ['a"b', 'ü\n'] })).to.equal(JSON.stringify({ at, tags: ['a"b', 'ü\n'] }));
    expect(write({ at, note: undefined, tags: [] })).to.equal('{"at":"2026-11-28T18:00:00.000Z","tags":[]}');
  });

  it('cannot vouch for a missing required property or a value of the wrong type, so the full check decides', () => {
    const write = compileSerializer(SignatureCreated)!;
    const { signature_count: _count, ...withoutCount } = created.data;
    expect(write({ ...created, data: withoutCount })).to.equal(undefined);
    expect(write({ ...created, data: { ...created.data, signature_count: 1.5 } })).to.equal(undefined);
    expect(write({ ...created, data: { ...created.data, is_anonymous: 'no' } })).to.equal(undefined);
    expect(write({ ...created, data: { ...created.data, signature_count: Number.NaN } })).to.equal(undefined);
  });

  it('writes nullable values and unions of literals, and picks an object branch by the value itself', () => {
    const Shape = Type.Object({
      status: Type.Union([Type.Literal('active'), Type.Literal('closed')]),
      who: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
    });
    const write = compileSerializer(Shape)!;
    expect(write({ status: 'active', who: null })).to.equal('{"status":"active","who":null}');
    expect(write({ status: 'closed', who: { name: 'A', secret: 1 } })).to.equal('{"status":"closed","who":{"name":"A"}}');
    expect(write({ status: 'draft', who: null })).to.equal(undefined);
  });

  it('compiles the schemas of list answers', () => {
    expect(compileSerializer(SignatureList)).to.be.a('function');
  });

  it('compiles to nothing for schemas it cannot write exactly (records, intersections, several object branches)', () => {
    expect(compileSerializer(Type.Record(Type.String(), Type.Number()))).to.equal(undefined);
    expect(compileSerializer(Type.Object({ any: Type.Any() }))).to.equal(undefined);
    expect(compileSerializer(Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]))).to.equal(undefined);
  });
});
