import { expect } from 'chai';
import { jsonDepth, MAX_DEPTH } from '../../../api/http/body.ts';
import { addressBucketKey } from '../../../api/http/rate-limit.ts';
import { compileValidator, fieldsWithNul } from '../../../api/http/validation.ts';
import { RallyError } from '../../../api/http/problem.ts';

describe('request parts (api/http)', () => {
  describe('NUL characters', () => {
    it('finds them in nested values and keys', () => {
      expect(fieldsWithNul({ a: 'ok', b: { c: ['x', 'y\u0000'] }, 'k\u0000': 1 })).to.have.members(['b.c[1]', 'k\\u0000']);
      expect(fieldsWithNul({ a: 'fine', n: 1, z: null })).to.deep.equal([]);
    });

    it('are refused as 422 invalid_characters even where a part has no schema', () => {
      const validate = compileValidator(null, 'query');
      expect(() => validate({ tags: '\u0000' }))
        .to.throw(RallyError)
        .with.property('errors')
        .that.deep.equals([{ field: 'tags', code: 'invalid_characters', message: 'must not contain the NUL character (\\u0000)' }]);
    });
  });

  describe('JSON depth', () => {
    it('counts nesting without recursion', () => {
      expect(jsonDepth('text')).to.equal(0);
      expect(jsonDepth({ a: [1, { b: {} }] })).to.equal(4);
      let deep: unknown = [];
      for (let level = 0; level < 100_000; level += 1) deep = [deep];
      expect(jsonDepth(deep)).to.be.greaterThan(MAX_DEPTH);
    });
  });

  describe('address buckets', () => {
    it('keys IPv4 addresses, mapped or not, by the address', () => {
      expect(addressBucketKey('203.0.113.7')).to.equal('ip:203.0.113.7');
      expect(addressBucketKey('::ffff:203.0.113.7')).to.equal('ip:203.0.113.7');
    });

    it('groups IPv6 addresses by their /64', () => {
      const a = addressBucketKey('2001:db8:1:2:aaaa::1');
      expect(addressBucketKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).to.equal(a);
      expect(a).to.equal('ip:2001:db8:1:2::/64');
      expect(addressBucketKey('2001:db8:1:3::1')).to.not.equal(a);
      expect(addressBucketKey('::1')).to.equal('ip:0:0:0:0::/64');
    });
  });
});
