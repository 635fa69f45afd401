// Outside production a webhook may go to a receiver on this machine without RALLY_WEBHOOK_ALLOW_PRIVATE
// (issue 47: testing webhooks on a laptop beside `npm start`), when registered and when delivered;
// production still refuses it, and other private addresses still need the setting everywhere.
import { promisify } from 'node:util';
import { expect } from 'chai';
import { assertDeliverableHost, createGuardedLookup, refuseWebhookUrl } from '../../../core/webhooks/url-guard.ts';

const development = { production: false, allowPrivate: false };
const production = { production: true, allowPrivate: false };
const LOOPBACK = ['http://localhost:8080/hooks', 'http://127.0.0.1:8080/hooks', 'http://[::1]:8080/hooks', 'https://hooks.localhost/rally'];

describe('webhook URLs on this machine (development loopback)', () => {
  for (const url of LOOPBACK) {
    it(`registers ${url} in development without RALLY_WEBHOOK_ALLOW_PRIVATE`, async () => {
      expect(await refuseWebhookUrl(url, development)).to.equal(undefined);
    });
    it(`refuses ${url} in production`, async () => {
      expect(await refuseWebhookUrl(url, production)).to.be.a('string');
    });
  }

  it('still refuses other private addresses in development without the setting', async () => {
    expect(await refuseWebhookUrl('http://10.0.0.7/hooks', development)).to.be.a('string');
    expect(await refuseWebhookUrl('https://192.168.1.20/hooks', development)).to.be.a('string');
  });

  it('delivers to a loopback address only when loopback is allowed', async () => {
    expect(() => assertDeliverableHost(new URL('http://127.0.0.1:8080/'), false, true)).to.not.throw();
    expect(() => assertDeliverableHost(new URL('http://127.0.0.1:8080/'), false, false)).to.throw(/private/);
    expect(() => assertDeliverableHost(new URL('http://10.0.0.7/'), false, true)).to.throw(/private/);
    const lookup = (allowLoopback: boolean) =>
      promisify((host: string, done: (error: Error | null, address?: unknown) => void) =>
        createGuardedLookup(false, allowLoopback)(host, {}, (error, address) => done(error, address)),
      )('localhost');
    expect(await lookup(true)).to.be.a('string');
    await lookup(false).then(
      () => expect.fail('localhost was not refused'),
      (error: Error) => expect(error.message).to.match(/private address/),
    );
  });
});
