// The document's OpenAPI 3.1 `webhooks`: one entry per event of the catalogue (core/vocabulary.ts
// EVENT_TYPES) and the `ping`, with the payload activities/webhooks.ts sends (webhookBody) and the headers it signs
// it with. The `data` of each event is the shape its emitter records (core/**: recordEvent).
import { Type, type TSchema } from '@sinclair/typebox';
import { ACTOR_TYPES, EVENT_TYPES, ORGANIZATION_TIERS, type EventType } from '../../core/vocabulary.ts';
import { Response as DecisionMakerResponse } from '../decision-makers/schemas.ts';
import { PetitionUpdate } from '../petition-updates/schemas.ts';
import { PetitionSummary } from '../petitions/schemas.ts';
import { PING_EVENT } from '../../core/webhooks/ping.ts';

const Uuid = Type.String({ format: 'uuid' });
const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));

const SignatureCreatedData = Type.Object({
  id: Uuid,
  petition_id: Uuid,
  user_id: Type.Union([Uuid, Type.Null()], { description: 'Null when the signer chose to be anonymous.' }),
  is_anonymous: Type.Boolean(),
  comment: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
const SignatureMilestoneData = Type.Object({
  petition_id: Uuid,
  milestone: Type.Integer({ description: 'The threshold reached.' }),
  signature_count: Type.Integer(),
  signature_goal: Type.Union([Type.Integer(), Type.Null()]),
  signature_id: Type.Union([Uuid, Type.Null()], { description: 'The signature that reached it.' }),
});
const SignatureRemovedData = Type.Union([
  Type.Object({ id: Uuid, petition_id: Uuid }, { description: 'One signature removed by its signer or an administrator.' }),
  Type.Object(
    { petition_id: Uuid, signature_ids: Type.Array(Uuid), count: Type.Integer(), reason: Type.Literal('invalidated'), invalidation_id: Uuid },
    { description: "A batch removed by an administrator's invalidation." },
  ),
]);
const SignatureAnonymizedData = Type.Object(
  {
    petition_id: Uuid,
    signature_ids: Type.Array(Uuid, { description: 'The signatures stripped of their signer: forget what you hold under these ids.' }),
    count: Type.Integer({ description: 'How many; they still count towards the petition.' }),
    reason: Type.Literal('account_deleted', { description: 'Their signer deleted their account.' }),
  },
  { description: "A petition's signatures stripped of everything that identified their signer; never any personal data." },
);
const PaymentCompletedData = Type.Object({
  organization_id: Uuid,
  organization_slug: Type.String(),
  previous_tier: literals(ORGANIZATION_TIERS),
  tier: literals(ORGANIZATION_TIERS),
});
const FraudSuspectedData = Type.Object({
  alert_id: Uuid,
  subject_type: Type.String({ description: 'What signed too fast: a petition or a network.' }),
  subject: Type.String(),
  petition_id: Type.Union([Uuid, Type.Null()]),
  window_start: Type.String({ format: 'date-time' }),
  window_end: Type.String({ format: 'date-time' }),
  signatures: Type.Integer(),
  baseline_per_window: Type.Number(),
  multiple: Type.Number(),
});
const BrigadingSuspectedData = Type.Object({
  alert_id: Uuid,
  target_type: Type.String(),
  target_id: Type.String(),
  network_block: Type.String({ description: "The reporters' network block, keyed (never an address)." }),
  reports: Type.Integer(),
  threshold: Type.Integer(),
  window: Type.String(),
  report_id: Uuid,
});

const DATA: Record<EventType, { title: string; summary: string; data: TSchema }> = {
  'petition.created': { title: 'Petition created', summary: 'A petition was created (as a draft)', data: PetitionSummary },
  'petition.updated': { title: 'Petition updated', summary: "A petition's title, description or settings changed", data: PetitionSummary },
  'petition.published': { title: 'Petition published', summary: 'A petition was published and is publicly visible', data: PetitionSummary },
  'petition.closed': { title: 'Petition closed', summary: 'A petition was closed by its creator or an administrator', data: PetitionSummary },
  'petition.victory': { title: 'Petition victorious', summary: 'A petition was marked victorious', data: PetitionSummary },
  'signature.created': { title: 'Signature created', summary: 'Someone signed a petition', data: SignatureCreatedData },
  'signature.milestone': { title: 'Signature milestone reached', summary: 'A petition reached a signature milestone', data: SignatureMilestoneData },
  'signature.removed': { title: 'Signatures removed', summary: 'Signatures were removed by their signer or an administrator', data: SignatureRemovedData },
  'update.created': { title: 'Petition update posted', summary: 'The creator posted an update', data: PetitionUpdate },
  'response.submitted': { title: 'Decision-maker response submitted', summary: 'A decision maker submitted an official response', data: DecisionMakerResponse },
  'response.published': { title: 'Decision-maker response published', summary: 'A decision-maker response was published', data: DecisionMakerResponse },
  'payment.completed': { title: 'Organization tier upgraded', summary: "An organization's tier was upgraded", data: PaymentCompletedData },
  'fraud.suspected': { title: 'Fraud suspected', summary: 'A signing rate jumped past its baseline (platform-wide endpoints only)', data: FraudSuspectedData },
  'signature.anonymized': {
    title: 'Signatures anonymized',
    summary: 'Signatures lost their signer, who deleted their account (only to endpoints that list this event)',
    data: SignatureAnonymizedData,
  },
  'report.brigading_suspected': {
    title: 'Report brigading suspected',
    summary: 'Many reports came from one network block (platform-wide endpoints only)',
    data: BrigadingSuspectedData,
  },
};

// Not an event of the catalogue: nobody subscribes to it, every endpoint gets it (core/webhooks/ping.ts).
const PingData = Type.Object({
  webhook_id: Uuid,
  url: Type.String({ format: 'uri', description: 'The endpoint URL pinged.' }),
  events: Type.Array(Type.String(), { description: 'The events the endpoint subscribes to.' }),
});
const PING = { title: 'Ping', summary: 'A test: sent to every new endpoint and on POST /v1/webhooks/{id}/test', data: PingData };

/** Who caused an event: one shape for every payload's `triggered_by`. */
export const EventActor = Type.Object(
  { type: literals(ACTOR_TYPES), id: Type.Union([Type.String(), Type.Null()]) },
  { description: 'The actor that caused the event.' },
);

/** The payload of one event, as activities/webhooks.ts (webhookBody) sends it. */
export function webhookPayload(type: EventType | typeof PING_EVENT): TSchema {
  return Type.Object({
    id: Type.String({ format: 'uuid', description: 'The event id: the same in every delivery of this event.' }),
    type: Type.Literal(type),
    created_at: Type.String({ format: 'date-time', description: 'When the event happened.' }),
    triggered_by: EventActor,
    data: type === PING_EVENT ? PING.data : DATA[type].data,
  });
}

export const WEBHOOK_HEADERS = {
  'X-Rally-Signature': 'sha256= and the hex HMAC-SHA256 of the raw body, keyed with the endpoint secret. Compare in constant time.',
  'X-Rally-Signature-V2': 't=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">: covers the time, so a receiver can refuse replays older than 5 minutes.',
  'X-Rally-Signature-Previous': 'During a secret rotation grace period: the X-Rally-Signature computed with the previous secret.',
  'X-Rally-Event': 'The event type.',
  'X-Rally-Delivery-Id': 'The delivery id (UUID): the same across retries of one delivery; deduplicate on it.',
  'X-Rally-Timestamp': 'When the event happened (ISO 8601).',
} as const;

/** Every payload a receiver may get: the events it subscribes to, and the ping it cannot subscribe to. */
export const webhookEvents = () => [
  ...EVENT_TYPES.map((type) => ({ type, title: DATA[type].title, summary: DATA[type].summary, payload: webhookPayload(type), subscribable: true })),
  { type: PING_EVENT, title: PING.title, summary: PING.summary, payload: webhookPayload(PING_EVENT), subscribable: false },
];
