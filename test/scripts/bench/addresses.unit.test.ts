// The bench's signing load comes from many client addresses (issue 43): consecutive slots are distinct
// addresses in distinct /24 network blocks of 127.0.0.0/8, and every phase of a run takes fresh ones.
import { expect } from 'chai';
import { createAddressPlan, loopbackAddress, SLOTS } from '../../../scripts/bench/addresses.ts';

const blockOf = (address: string) => address.split('.').slice(0, 3).join('.');

describe('bench client addresses (scripts/bench/addresses.ts)', () => {
  it('gives 10,000 consecutive slots 10,000 distinct loopback addresses in 10,000 distinct /24 blocks', () => {
    const addresses = Array.from({ length: 10_000 }, (_, slot) => loopbackAddress(123_456 + slot));
    expect(new Set(addresses).size).to.equal(10_000);
    expect(new Set(addresses.map(blockOf)).size).to.equal(10_000);
    for (const address of addresses) {
      const [first, ...rest] = address.split('.').map(Number);
      expect(first).to.equal(127);
      expect(rest.every((octet) => octet >= 0 && octet <= 255)).to.equal(true);
      expect(rest[2]).to.be.within(1, 254);
    }
  });

  it('wraps around the 16 million slots of 127.0.0.0/8', () => {
    expect(loopbackAddress(SLOTS)).to.equal(loopbackAddress(0));
    expect(loopbackAddress(SLOTS - 1)).to.equal('127.255.255.254');
  });

  it('hands each phase a run of slots no earlier phase had', () => {
    const plan = createAddressPlan(10_000, () => 0.5);
    const firsts = Array.from({ length: 5 }, () => plan.next());
    firsts.slice(1).forEach((first, index) => expect(first - firsts[index]!).to.equal(10_000));
  });
});
