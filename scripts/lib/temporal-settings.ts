// Loads temporal.yaml (the Temporal side of a deployment) into a validated, typed object, and applies
// the parts of it that live on the server: search attributes and, for the dev server, retention.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
// The SDK's own millisecond → protobuf Duration conversion (its `seconds` field is a Long).
import { msNumberToTs } from '@temporalio/common/lib/time.js';
import { type Static, Type } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '../../platform/config.ts';

export const TEMPORAL_SETTINGS_FILE = path.resolve(import.meta.dirname, '..', '..', 'temporal.yaml');

const SEARCH_ATTRIBUTE_TYPES = ['Keyword', 'Text', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'] as const;
export type SearchAttributeType = (typeof SEARCH_ATTRIBUTE_TYPES)[number];

// Numbers of temporal.api.enums.v1.IndexedValueType; written out so this module needs no direct
// dependency on @temporalio/proto.
const INDEXED_VALUE_TYPE: Record<SearchAttributeType, number> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

// Checked with TypeBox like every other deployment setting (platform/config/); zod is for database
// rows (docs/architecture.md, "One schema library per job").
const port = Type.Integer({ minimum: 1, maximum: 65_535 });
const nonEmpty = Type.String({ minLength: 1 });

const settingsSchema = Type.Object(
  {
    namespace: nonEmpty,
    taskQueue: nonEmpty,
    workflowRetention: Type.String(),
    devServer: Type.Object({ ip: nonEmpty, port, uiPort: port, dbFile: nonEmpty }, { additionalProperties: false }),
    // Names are identifiers (letters, digits, _): any other key is refused as an unexpected property.
    searchAttributes: Type.Record(Type.RegExp(/^[A-Za-z][A-Za-z0-9_]*$/), Type.Union(SEARCH_ATTRIBUTE_TYPES.map((type) => Type.Literal(type))), {
      additionalProperties: false,
    }),
  },
  { additionalProperties: false },
);

export type TemporalSettings = Readonly<Omit<Static<typeof settingsSchema>, 'workflowRetention'> & { workflowRetentionMs: number }>;

export class TemporalSettingsError extends Error {
  override name = 'TemporalSettingsError';
}

// TypeBox's words, except for a choice among values, where "Expected union value" would not say which.
function problemWords(error: ValueError): string {
  const choices = (error.schema.anyOf as { const?: unknown }[] | undefined)?.map((choice) => choice.const);
  return choices?.every((choice) => typeof choice === 'string') ? `must be one of ${choices.join(', ')}` : error.message;
}

/** Parses and validates a temporal.yaml; the error names the file and the offending field. */
export function loadTemporalSettings(file: string = TEMPORAL_SETTINGS_FILE): TemporalSettings {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TemporalSettingsError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Value.Check(settingsSchema, document)) {
    const problems = [...Value.Errors(settingsSchema, document)].map((error) => `  ${error.path || '/'}: ${problemWords(error)}`);
    throw new TemporalSettingsError(`${file} is not valid:\n${problems.join('\n')}`);
  }
  const { workflowRetention, ...rest } = document;
  let workflowRetentionMs: number;
  try {
    workflowRetentionMs = parseDuration('workflowRetention', workflowRetention);
  } catch (error) {
    throw new TemporalSettingsError(`${file}: ${(error as Error).message}`);
  }
  return Object.freeze({ ...rest, workflowRetentionMs });
}

const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers the search attributes an existing cluster lacks (a dev server gets them as start-up
 * flags instead). Attributes already present with the same type are left alone; one present with a
 * different type is an error, since workflows would then fail to upsert it.
 */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
  attrs: Readonly<Record<string, SearchAttributeType>>,
): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = { ...existing.systemAttributes, ...existing.customAttributes };
  const missing: Record<string, number> = {};
  for (const [name, type] of Object.entries(attrs)) {
    const current = known[name];
    if (current === undefined) missing[name] = INDEXED_VALUE_TYPE[type];
    else if (current !== INDEXED_VALUE_TYPE[type]) {
      throw new Error(`search attribute ${name} exists in namespace ${namespace} with another type than ${type}`);
    }
  }
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (error) {
    // Another process registering the same attributes at the same moment is fine.
    if (!(isGrpcServiceError(error) && error.code === GRPC_ALREADY_EXISTS)) throw error;
  }
  return names;
}

/** Sets how long closed workflows are kept. Used for the dev server, whose namespace we own. */
export async function applyWorkflowRetention(connection: Connection, namespace: string, retentionMs: number): Promise<void> {
  await connection.workflowService.updateNamespace({
    namespace,
    config: { workflowExecutionRetentionTtl: msNumberToTs(retentionMs) },
  });
}

/**
 * Registers the namespace on a real server (the dev server creates its own at start-up); true when
 * it was created. A new namespace reaches every service's cache within about 10 s, so this waits until
 * the frontend lists its search attributes.
 */
export async function ensureNamespace(connection: Connection, namespace: string, retentionMs: number): Promise<boolean> {
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msNumberToTs(retentionMs) });
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === GRPC_ALREADY_EXISTS) return false;
    throw error;
  }
  for (let attempt = 0; ; attempt += 1) {
    try {
      await connection.operatorService.listSearchAttributes({ namespace });
      return true;
    } catch (error) {
      if (attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
