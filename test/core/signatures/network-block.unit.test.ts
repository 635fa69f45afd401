import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { networkBlockHash, networkBlockHashesOf, networkBlockKey } from '../../../core/signatures/network-block.ts';

const key = networkBlockKey('11'.repeat(32));
const hmacOf = (block: string) => createHmac('sha256', key).update(block).digest();

describe('network block hashes (core/signatures/network-block.ts)', () => {
  it('hashes the /24 of an IPv4 address and the /64 of an IPv6 one with the derived key', () => {
    expect(networkBlockHash(key, '203.0.113.7')).to.deep.equal(hmacOf('203.0.113.0/24'));
    expect(networkBlockHash(key, '203.0.113.250')).to.deep.equal(networkBlockHash(key, '::ffff:203.0.113.1'));
    expect(networkBlockHash(key, '2001:db8:0:1::5')).to.deep.equal(networkBlockHash(key, '2001:db8:0:1:ffff::1'));
    expect(networkBlockHash(key, '203.0.114.7')).not.to.deep.equal(networkBlockHash(key, '203.0.113.7'));
  });

  it('gives another key other hashes, and finds a block again from a filter', () => {
    const other = networkBlockKey('22'.repeat(32));
    expect(networkBlockHash(other, '203.0.113.7')).not.to.deep.equal(networkBlockHash(key, '203.0.113.7'));
    expect(networkBlockHashesOf(key, '203.0.113.0/24')).to.deep.equal([networkBlockHash(key, '203.0.113.7')]);
  });
});
