import { expect } from 'chai';
import { createDestinationBudget, destinationOfAddress } from '../../../core/webhooks/destination-budget.ts';

/** A send that stays in flight until released, counting how many are in flight at once. */
function heldSends() {
  let inFlight = 0;
  let peak = 0;
  const releases: (() => void)[] = [];
  const send = () =>
    new Promise<string>((resolve) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      releases.push(() => {
        inFlight -= 1;
        resolve('sent');
      });
    });
  const releaseAll = async () => {
    while (releases.length > 0 || inFlight > 0) {
      releases.splice(0).forEach((release) => release());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { send, releaseAll, peak: () => peak };
}

describe('core/webhooks/destination-budget', () => {
  it('groups an IPv6 destination by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    expect(destinationOfAddress('2001:db8:0:1::5')).to.equal(destinationOfAddress('2001:0db8:0000:0001:ffff::9'));
    expect(destinationOfAddress('2001:db8:0:1::5')).to.not.equal(destinationOfAddress('2001:db8:0:2::5'));
    expect(destinationOfAddress('::ffff:203.0.113.7')).to.equal('203.0.113.7');
  });

  it('keeps requests to one address under the bound across names, ports and paths, and lets the rest through as slots free', async () => {
    const budget = createDestinationBudget(2, async () => '203.0.113.7');
    const sends = heldSends();
    const urls = ['https://a.example/hook', 'https://b.example:8443/x', 'https://203.0.113.7/y', 'https://a.example/z'];
    const outcomes = Promise.all(urls.map((url) => budget.withSlot(url, 10_000, sends.send)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sends.peak()).to.equal(2);
    await sends.releaseAll();
    expect(await outcomes).to.deep.equal(['sent', 'sent', 'sent', 'sent']);
    expect(sends.peak()).to.equal(2);
  });

  it('answers busy when no slot frees within half the timeout, and gives another destination its own slots', async () => {
    const budget = createDestinationBudget(1, async (host) => (host === 'victim.example' ? '203.0.113.7' : '198.51.100.1'));
    const sends = heldSends();
    const holding = budget.withSlot('https://victim.example/', 10_000, sends.send);
    expect(await budget.withSlot('https://victim.example/', 40, sends.send)).to.equal('busy');
    const elsewhere = budget.withSlot('https://other.example/', 40, sends.send);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sends.peak()).to.equal(2);
    await sends.releaseAll();
    expect(await Promise.all([holding, elsewhere])).to.deep.equal(['sent', 'sent']);
  });

  it('gives the sender the time the wait left over', async () => {
    const budget = createDestinationBudget(1, async () => '203.0.113.7');
    let given = 0;
    expect(await budget.withSlot('https://a.example/', 1_000, async (remaining) => (given = remaining))).to.be.a('number');
    expect(given).to.be.within(900, 1_000);
  });
});
