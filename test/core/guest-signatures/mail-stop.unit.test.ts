// The "never email me again" link (core/guest-signatures/mail-stop.ts, issue 42): only a link Rally
// made names an address hash, so a stranger can neither stop someone else's mail nor fill the table.
import { expect } from 'chai';
import { addressHash, mailStopKey, mailStopToken, parseMailStopToken } from '../../../core/guest-signatures/mail-stop.ts';

const KEY = mailStopKey('12'.repeat(32));

describe('"never email me again" links (core/guest-signatures/mail-stop.ts)', () => {
  it('names the keyed hash of the address’s normalised key, and only in a link Rally made', () => {
    const token = mailStopToken(KEY, 'gina@guests.example');
    expect(parseMailStopToken(KEY, token)).to.deep.equal(addressHash(KEY, 'gina@guests.example'));
    expect(token).to.not.include('gina');
    // Another server's key, a swapped hash, a changed MAC, and things that are no token at all.
    expect(parseMailStopToken(mailStopKey('34'.repeat(32)), token)).to.equal(null);
    const [hash, mac] = token.split('.') as [string, string];
    const other = mailStopToken(KEY, 'someone@else.example').split('.')[0]!;
    expect(parseMailStopToken(KEY, `${other}.${mac}`)).to.equal(null);
    expect(parseMailStopToken(KEY, `${hash}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`)).to.equal(null);
    for (const junk of ['', 'x', `${hash}.`, `${hash}.${mac}.x`, `${hash}%2e${mac}`]) expect(parseMailStopToken(KEY, junk)).to.equal(null);
  });
});
