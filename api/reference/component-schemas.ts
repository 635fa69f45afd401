// Named component schemas: every shape an api/*/schemas.ts module exports becomes `components.schemas.<export name>`, referred to by `$ref` wherever the
// document uses it, so generated clients get one model per resource. Shapes are matched by their JSON (TypeBox copies a schema when it is made optional), not
// by $id: the Ajv validators compile the same schemas many times, and an $id may only be compiled once.
import type { TSchema } from '@sinclair/typebox';
import { checkedExample } from './schema-examples.ts';
import * as admin from '../admin/schemas.ts';
import * as fraud from '../admin/fraud-schemas.ts';
import * as analytics from '../analytics/schemas.ts';
import * as apiKeys from '../api-keys/schemas.ts';
import * as auth from '../auth/schemas.ts';
import * as comments from '../comments/schemas.ts';
import * as decisionMakers from '../decision-makers/schemas.ts';
import * as embeds from '../embeds/schemas.ts';
import * as envelopes from '../http/envelopes.ts';
import * as health from '../health/schemas.ts';
import * as pagination from '../http/pagination.ts';
import * as media from '../media/schemas.ts';
import * as notifications from '../notifications/schemas.ts';
import * as oauth from '../oauth/schemas.ts';
import * as organizations from '../organizations/schemas.ts';
import * as petitionUpdates from '../petition-updates/schemas.ts';
import * as petitions from '../petitions/schemas.ts';
import * as reports from '../reports/schemas.ts';
import * as search from '../search/schemas.ts';
import * as signatures from '../signatures/schemas.ts';
import * as accountExports from '../users/export-schemas.ts';
import * as users from '../users/schemas.ts';
import * as webhooks from '../webhooks/schemas.ts';
import * as webhookEvents from './webhook-events.ts';

const MODULES = [
  petitions,
  petitionUpdates,
  signatures,
  comments,
  users,
  accountExports,
  auth,
  apiKeys,
  webhooks,
  notifications,
  organizations,
  decisionMakers,
  media,
  embeds,
  search,
  analytics,
  reports,
  oauth,
  admin,
  fraud,
  health,
  pagination,
  envelopes,
  webhookEvents,
];

// Export names that are too short to say what they are once out of their module.
const RENAMED: Record<string, string> = {
  Status: 'PetitionStatus',
  Visibility: 'PetitionVisibility',
  Response: 'DecisionMakerResponse',
  ResponseEnvelope: 'DecisionMakerResponseEnvelope',
  ResponseList: 'DecisionMakerResponseList',
  Warning: 'ModerationWarning',
  WarningCreate: 'ModerationWarningCreate',
  WarningEnvelope: 'ModerationWarningEnvelope',
  WarningList: 'ModerationWarningList',
  Metrics: 'AdminMetrics',
  MetricsEnvelope: 'AdminMetricsEnvelope',
  Attempt: 'DeliveryAttempt',
  Delivery: 'WebhookDelivery',
  DeliveryEnvelope: 'WebhookDeliveryEnvelope',
  DeliveryList: 'WebhookDeliveryList',
  DeliveryStatus: 'WebhookDeliveryStatus',
  EventName: 'WebhookEventName',
  Preferences: 'NotificationPreferences',
  PreferencesPatch: 'NotificationPreferencesPatch',
  PreferencesEnvelope: 'NotificationPreferencesEnvelope',
  Channels: 'NotificationChannels',
  ClearFlagsBody: 'ClearFlagsRequest',
  ChannelsPatch: 'NotificationChannelsPatch',
  PaginationSchema: 'Pagination',
  Meta: 'Meta',
};

const isSchema = (value: unknown): value is TSchema =>
  typeof value === 'object' && value !== null && ('type' in value || 'anyOf' in value) && Object.getOwnPropertySymbols(value).length > 0;

// Parameter sets (…Params, …Query) become parameters, not components; plain strings and numbers stay inline.
const isModel = (name: string, schema: TSchema) =>
  !/(Params|Query)$/.test(name) && (schema.type === 'object' || (Array.isArray(schema.anyOf) && schema.anyOf.every((branch) => 'const' in branch)));

/** The named shapes: JSON text of a shape → its component name (the first module naming it wins). */
export function namedShapes(): Map<string, { name: string; schema: object }> {
  const shapes = new Map<string, { name: string; schema: object }>();
  for (const module of MODULES) {
    for (const [exportName, value] of Object.entries(module)) {
      if (!isSchema(value) || !isModel(exportName, value)) continue;
      const text = JSON.stringify(value);
      if (!shapes.has(text)) shapes.set(text, { name: RENAMED[exportName] ?? exportName, schema: JSON.parse(text) as object });
    }
  }
  return shapes;
}

/**
 * Keeps the components of a document: `refer` turns a schema into one whose named parts (and itself,
 * unless it is being defined) are `$ref`s, adding each named part to `components` once.
 */
export function createComponentSchemas(initial: Record<string, object>) {
  const shapes = namedShapes();
  const components: Record<string, object> = { ...initial };
  const refer = (schema: unknown, definingName?: string): unknown => {
    if (Array.isArray(schema)) return schema.map((item) => refer(item));
    if (typeof schema !== 'object' || schema === null) return schema;
    const named = shapes.get(JSON.stringify(schema));
    if (named && named.name !== definingName) {
      if (!(named.name in components)) {
        components[named.name] = {};
        components[named.name] = refer(named.schema, named.name) as object;
      }
      return { $ref: `#/components/schemas/${named.name}` };
    }
    return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'examples' || key === 'default' ? value : refer(value)]));
  };
  /** Names a shape that no module exports (an operation's own body or answer) and refers to it. */
  const define = (name: string, schema: object): object => {
    const referred = refer(schema);
    if ('$ref' in (referred as object)) return referred as object;
    let unique = name;
    for (let n = 2; unique in components && JSON.stringify(components[unique]) !== JSON.stringify(referred); n++) unique = `${name}${n}`;
    components[unique] = referred as object;
    return { $ref: `#/components/schemas/${unique}` };
  };
  /**
   * A body or answer's schema as a reference to its component, after checking that the example made
   * from it validates. The example itself is not repeated: every scalar property carries its own
   * (schema-annotations.ts), from which a reader or renderer composes the same whole.
   */
  const checkedDefine = (name: string, schema: object, where: string): object => {
    checkedExample(schema, where);
    return define(name, schema);
  };
  return { refer, define, checkedDefine, components };
}
