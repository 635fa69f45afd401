import { expect } from 'chai';
import { loadConfig } from '../../platform/config.ts';
import { createClientAddressResolver } from '../../api/http/client-address.ts';

const resolverFor = (setting: string) => createClientAddressResolver(loadConfig({ RALLY_TRUST_PROXY: setting }).trustProxy);

describe('the client address behind proxies (RALLY_TRUST_PROXY)', () => {
  it('ignores X-Forwarded-For unless proxies are trusted', () => {
    expect(resolverFor('false')('::ffff:192.0.2.1', '203.0.113.5')).to.equal('192.0.2.1');
  });

  it('takes the address the trusted hop saw, not the client-chosen leftmost entry', () => {
    // The client wrote "1.1.1.1"; the one proxy in front of Rally appended the real peer.
    expect(resolverFor('1')('10.0.0.2', '1.1.1.1, 198.51.100.7')).to.equal('198.51.100.7');
    expect(resolverFor('true')('10.0.0.2', '1.1.1.1, 198.51.100.7')).to.equal('198.51.100.7');
    expect(resolverFor('2')('10.0.0.2', '1.1.1.1, 198.51.100.7, 10.0.0.9')).to.equal('198.51.100.7');
  });

  it('uses the farthest entry there is when fewer hops arrived than trusted, and stops at a non-address', () => {
    expect(resolverFor('3')('10.0.0.2', '198.51.100.7')).to.equal('198.51.100.7');
    expect(resolverFor('2')('10.0.0.2', '1.1.1.1, not-an-ip, 10.0.0.9')).to.equal('10.0.0.9');
  });

  it('with a CIDR list, walks from the right past trusted proxies only', () => {
    const resolve = resolverFor('10.0.0.0/8, 2001:db8::/32');
    expect(resolve('10.1.2.3', '1.1.1.1, 198.51.100.7, 10.9.9.9')).to.equal('198.51.100.7');
    expect(resolve('2001:db8::1', '198.51.100.8')).to.equal('198.51.100.8');
    // A peer outside the list is the client, whatever header it sent.
    expect(resolve('192.0.2.44', '1.1.1.1')).to.equal('192.0.2.44');
  });

  it('refuses a malformed setting', () => {
    for (const setting of ['yes', '10.0.0.0/33', '1.2.3.4/8/1', '999']) {
      expect(() => loadConfig({ RALLY_TRUST_PROXY: setting }), setting).to.throw(/RALLY_TRUST_PROXY/);
    }
  });
});
