// Rally's configuration as one TypeBox schema: every environment variable any process reads, by area,
// in the order of the README's table (generated from it by scripts/config-table.ts). buildConfig()
// turns the validated, decoded values into the Config that consumers receive.

import { Type, type StaticDecode } from '@sinclair/typebox';
import { databaseSettings, databaseVariables } from './database.ts';
import { httpSettings, httpVariables } from './http.ts';
import { identitySettings, identityVariables } from './identity.ts';
import { limitSettings, limitVariables } from './limits.ts';
import { mailSettings, mailVariables } from './mail.ts';
import { mediaSettings, mediaVariables } from './media.ts';
import { moderationSettings, moderationVariables } from './moderation.ts';
import { observabilitySettings, observabilityVariables } from './observability.ts';
import { temporalSettings, temporalVariables } from './temporal.ts';
import type { Config } from './types.ts';
import { webhookSettings, webhookVariables } from './webhooks.ts';

export const ConfigSchema = Type.Object({
  ...httpVariables,
  ...databaseVariables,
  ...temporalVariables,
  ...identityVariables,
  ...webhookVariables,
  ...mediaVariables,
  ...mailVariables,
  ...limitVariables,
  ...moderationVariables,
  ...observabilityVariables,
});

export type ConfigValues = StaticDecode<typeof ConfigSchema>;

export function buildConfig(values: ConfigValues): Config {
  const { apiReadinessDelayMs, ...http } = httpSettings(values);
  const database = databaseSettings(values);
  const { workerGraceMs, ...temporal } = temporalSettings(values, http.nodeEnv);
  return Object.freeze({
    ...http,
    ...database,
    ...temporal,
    shutdown: Object.freeze({ apiReadinessDelayMs, workerGraceMs }),
    ...identitySettings(values),
    ...webhookSettings(values),
    ...mediaSettings(values, database.dataDir),
    ...mailSettings(values, database.dataDir, http.publicUrl),
    ...limitSettings(values),
    ...moderationSettings(values),
    ...observabilitySettings(values),
  });
}
