import { expect } from 'chai';
import { checkGeolocationDatabases, locateSigner } from '../../../core/signatures/geolocation.ts';

const decimals = (value: number | null) => (value === null ? 0 : (String(value).split('.')[1] ?? '').length);

describe('locateSigner (core/signatures/geolocation.ts)', () => {
  it('places a public IPv4 address in its city, with coordinates at city precision', () => {
    // An address of RENATER, the French research network, in Lyon.
    const place = locateSigner('193.51.224.1', null);
    expect(place).to.include({ city: 'Lyon', country: 'FR' });
    expect(decimals(place.latitude)).to.be.at.most(2);
    expect(decimals(place.longitude)).to.be.at.most(2);
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(locateSigner('::ffff:193.51.224.1', null)).to.deep.equal(locateSigner('193.51.224.1', null));
  });

  it('places a public IPv6 address from the IPv6 database', () => {
    const place = locateSigner('2a02:8070::1', null);
    expect(place.country).to.match(/^[A-Z]{2}$/);
    expect(place.city).to.be.a('string');
  });

  it('falls back to the display location when the address is private', () => {
    expect(locateSigner('127.0.0.1', 'Lyon, France')).to.include({ city: 'Lyon', country: 'FR' });
  });

  it('answers an unknown place, not an error, for an address that is not one', () => {
    expect(locateSigner('not-an-address', null)).to.deep.equal({ city: null, region: null, country: null, latitude: null, longitude: null });
  });
});

describe('checkGeolocationDatabases (core/signatures/geolocation.ts)', () => {
  it('accepts the installed IPv4 and IPv6 databases by their metadata section', async () => {
    await checkGeolocationDatabases();
  });
});
