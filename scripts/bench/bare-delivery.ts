// The reference for the delivery pipeline: a bare `undici` loop sending the same signed requests (body, both signature headers, delivery id) to the same
// receiver, as many in flight as an endpoint's delivery window allows. The pipeline adds the outbox, Temporal and the attempt records on top of this; issue 28
// wants it at ≥ 0.5 of the bare loop. It runs in a process of its own, as the worker does: in the bench's process it would share one thread with the receiver.
import { randomUUID } from 'node:crypto';
import { spawnPrefixed, stopChild } from '../lib/child-process.ts';
import { Agent, request } from 'undici';
import { generateSigningSecret, signPayload, signPayloadV2 } from '../../core/webhooks/signing-secrets.ts';

export type BareDelivery = Readonly<{ rate: number; count: number; seconds: number; failed: number }>;

/** `count` signed POSTs to `url`, `inFlight` at a time, on one keep-alive agent. */
async function sendAll(url: string, count: number, inFlight: number): Promise<BareDelivery> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const secret = generateSigningSecret();
  let next = 0;
  let failed = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          next += 1;
          const id = randomUUID();
          const occurredAt = new Date().toISOString();
          const body = JSON.stringify({ id, type: 'signature.created', created_at: occurredAt, data: { petition_id: randomUUID(), n: next } });
          const response = await request(url, {
            dispatcher: agent,
            method: 'POST',
            body,
            headers: {
              'content-type': 'application/json',
              'user-agent': 'Rally-Webhooks/1',
              'x-rally-signature': signPayload(secret, body),
              'x-rally-event': 'signature.created',
              'x-rally-delivery-id': randomUUID(),
              'x-rally-timestamp': occurredAt,
              'x-rally-signature-v2': signPayloadV2([secret], body, Math.floor(Date.now() / 1000)),
            },
          });
          await response.body.text();
          if (response.statusCode !== 200) failed += 1;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { rate: count / seconds, count, seconds, failed };
}

/** Runs the loop in a child process (this file) and returns what it measured. */
export async function bareUndiciLoop(url: string, count: number, inFlight: number): Promise<BareDelivery> {
  const child = spawnPrefixed({
    name: 'bare-undici',
    command: process.execPath,
    args: [import.meta.filename, url, String(count), String(inFlight)],
    ipc: true,
  });
  try {
    return await new Promise<BareDelivery>((resolve, reject) => {
      child.process.once('message', (message: BareDelivery) => resolve(message));
      void child.exited.then((exit) => reject(new Error(`the bare undici loop exited without a result (code ${exit.code})`)));
    });
  } finally {
    await stopChild(child, 5_000);
  }
}

if (process.argv[1] === import.meta.filename && process.send) {
  const [url, count, inFlight] = process.argv.slice(2);
  const result = await sendAll(url!, Number(count), Number(inFlight));
  process.send(result, undefined, undefined, () => process.exit(0));
}
