// The delivery the webhooks guide shows is one Rally would send: its body has the event's payload
// schema, and its two signatures are those of that body under the secret the guide names, so a reader
// can check their own verifier against it.
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { signPayload, signPayloadV2 } from '../../core/webhooks/signing-secrets.ts';
import { addFormats } from '../../api/http/validation.ts';
import { webhookPayload } from '../../api/reference/webhook-events.ts';
import type { EventType } from '../../core/vocabulary.ts';
import { parse, readDocument } from '../support/markdown.ts';

const GUIDE = 'docs/guides/receiving-webhooks.md';
const markdown = await readDocument(GUIDE);
const block = parse(markdown).blocks.find(({ info }) => info === 'http')!;
const [head, body] = block.code.trimEnd().split('\n\n') as [string, string];
const headers = Object.fromEntries(
  head
    .split('\n')
    .slice(1)
    .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
);
// The secret the guide names just before the delivery.
const secret = /`(whsec_[\w-]{43})`/.exec(markdown.split('\n').slice(0, block.line).join('\n').split('## What a delivery looks like')[1] ?? '')?.[1];

describe(`the delivery shown in ${GUIDE}`, () => {
  it('names the secret it was signed with', () => {
    expect(secret).to.be.a('string');
  });

  it('carries the signatures of its body under that secret, in both schemes', () => {
    const t = Number(/^t=(\d+),/.exec(headers['x-rally-signature-v2']!)?.[1]);
    expect(headers['x-rally-signature']).to.equal(signPayload(secret!, body));
    expect(headers['x-rally-signature-v2']).to.equal(signPayloadV2([secret!], body, t));
    expect(new Date(t * 1000).getTime()).to.be.at.least(Date.parse(headers['x-rally-timestamp']!));
  });

  it('has a body of its event’s payload schema, named in its headers', () => {
    const event = JSON.parse(body) as { type: EventType; created_at: string };
    expect(event.type).to.equal(headers['x-rally-event']);
    expect(event.created_at).to.equal(headers['x-rally-timestamp']);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(JSON.stringify(webhookPayload(event.type))) as object);
    expect(validate(event), ajv.errorsText(validate.errors)).to.equal(true);
  });
});
