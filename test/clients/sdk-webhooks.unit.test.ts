// constructEvent against the signature scheme of the spec, made here as Rally's worker makes it
// (core/webhooks/signing-secrets.ts): every v1= of a rotation verifies with its own secret, a time
// outside the tolerance or a missing header is refused, and the event type narrows its data.
import { expect } from 'chai';
import { constructEvent, WebhookVerificationError, type WebhookEvent } from '../../clients/typescript/src/index.ts';
import { signPayloadV2 } from '../../core/webhooks/signing-secrets.ts';

const EVENT = {
  id: 'c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  type: 'report.brigading_suspected',
  created_at: '2026-05-01T09:30:00.000Z',
  triggered_by: { type: 'system', id: null },
  data: {
    alert_id: '0f9e8d7c-6b5a-4c3d-8e2f-a0b9c8d7e6f5',
    target_type: 'petition',
    target_id: '7b1f3c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b',
    network_block: '203.0.113.0/24',
    reports: 12,
  },
};
const body = JSON.stringify(EVENT);
const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('verified'),
    (error: unknown) => error,
  );

describe('the SDK verifying webhook signatures (constructEvent)', () => {
  let now: number;
  beforeEach(() => (now = Math.floor(Date.now() / 1000)));

  it('accepts any v1= of a rotation, with either secret, from a Headers object or a plain record', async () => {
    const headers = { 'X-Rally-Signature-V2': signPayloadV2(['whsec_old', 'whsec_new'], body, now) };
    expect((await constructEvent(body, headers, 'whsec_old')).id).to.equal(EVENT.id);
    expect((await constructEvent(new TextEncoder().encode(body), new Headers(headers), ['whsec_other', 'whsec_new'])).id).to.equal(EVENT.id);
  });

  it('refuses another secret, a changed body, a time outside the tolerance, and a delivery without the V2 header', async () => {
    const headers = { 'x-rally-signature-v2': signPayloadV2(['whsec_new'], body, now) };
    for (const attempt of [
      () => constructEvent(body, headers, 'whsec_old'),
      () => constructEvent(body.replace('"reports":12', '"reports":13'), headers, 'whsec_new'),
      () => constructEvent(body, { 'x-rally-signature-v2': signPayloadV2(['whsec_new'], body, now - 400) }, 'whsec_new'),
      () => constructEvent(body, { 'x-rally-signature-v2': signPayloadV2(['whsec_new'], body, now + 400) }, 'whsec_new'),
      () => constructEvent(body, { 'x-rally-signature': 'sha256=00' }, 'whsec_new'),
      () => constructEvent(body, { 'x-rally-signature-v2': `t=${now},v1=not-hex` }, 'whsec_new'),
    ])
      expect(await refused(attempt())).to.be.instanceOf(WebhookVerificationError);
    const old = { 'x-rally-signature-v2': signPayloadV2(['whsec_new'], body, now - 600) };
    expect((await constructEvent(body, old, 'whsec_new', { toleranceSeconds: 900 })).id).to.equal(EVENT.id);
  });

  it('returns a union that narrows on type', async () => {
    const event: WebhookEvent = await constructEvent(body, { 'x-rally-signature-v2': signPayloadV2(['whsec_new'], body, now) }, 'whsec_new');
    switch (event.type) {
      case 'report.brigading_suspected':
        // Compiles only because the union narrowed: network_block is on this event's data alone.
        expect([event.data.network_block, event.data.reports]).to.deep.equal(['203.0.113.0/24', 12]);
        break;
      default:
        expect.fail(`narrowed to ${event.type}`);
    }
  });
});
