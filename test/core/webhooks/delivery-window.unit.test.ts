import { expect } from 'chai';
import { FAST_ANSWER_MS, nextDeliveryWindow } from '../../../core/webhooks/delivery-window.ts';

const fast = { ok: true, latencyMs: 5 };
const slow = { ok: true, latencyMs: FAST_ANSWER_MS + 1 };
const failed = { ok: false, latencyMs: 5 };

describe('the webhook delivery window (core/webhooks/delivery-window.ts)', () => {
  it('grows by one for each answer that came back fast, up to the ceiling', () => {
    expect(nextDeliveryWindow(8, [fast, fast, fast], 100)).to.equal(11);
    expect(nextDeliveryWindow(99, [fast, fast, fast], 100)).to.equal(100);
  });

  it('keeps its size when the answers were successful but slow', () => {
    expect(nextDeliveryWindow(8, [slow, slow], 100)).to.equal(8);
    expect(nextDeliveryWindow(8, [slow, fast], 100)).to.equal(9);
  });

  it('halves after a batch with any failure or timeout, never below one', () => {
    expect(nextDeliveryWindow(64, [fast, failed, fast], 100)).to.equal(32);
    expect(nextDeliveryWindow(1, [failed], 100)).to.equal(1);
  });

  it('comes back within the ceiling when the ceiling was lowered', () => {
    expect(nextDeliveryWindow(500, [fast], 100)).to.equal(100);
  });
});
