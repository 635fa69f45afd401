// How long Rally keeps what it holds of a person for them or because of them (issue 46): the
// validity of a data export's download link, how long after a petition ends its signers' details go,
// and how long the outbox keeps events (whose data names signers and authors).

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { custom, duration } from './variables.ts';
import { parseDuration } from './formats.ts';

export const personalDataVariables = {
  RALLY_EXPORT_LINK_TTL: duration('RALLY_EXPORT_LINK_TTL', {
    default: '7d',
    description: 'how long the emailed link to a data export works (once); the archive is removed after it',
  }),
  RALLY_SIGNER_DATA_RETENTION: custom(
    'duration-or-off',
    { default: '180d', description: "how long after a petition closes its signers' details are stripped (`off` keeps them)" },
    (raw) => (raw.trim() === 'off' ? null : parseDuration('RALLY_SIGNER_DATA_RETENTION', raw)),
  ),
  RALLY_EVENT_RETENTION: duration('RALLY_EVENT_RETENTION', {
    default: '30d',
    description: 'how long outbox events are kept (whole days are dropped after it); the furthest back POST /v1/webhooks/{id}/replay reaches',
  }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof personalDataVariables>>>;

export function personalDataSettings(values: Values) {
  return {
    personalData: Object.freeze({
      exportLinkTtlMs: values.RALLY_EXPORT_LINK_TTL,
      signerDataRetentionMs: values.RALLY_SIGNER_DATA_RETENTION,
      eventRetentionMs: values.RALLY_EVENT_RETENTION,
    }),
  } satisfies Partial<Config>;
}
