// Loads temporal.yaml (the Temporal side of a deployment) into a validated, typed object, and applies
// the parts of it that live on the server: search attributes and, for the dev server, retention.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
// The SDK's own millisecond → protobuf Duration conversion (its `seconds` field is a Long).
import { msNumberToTs } from '@temporalio/common/lib/time.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
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

const port = z.number().int().min(1).max(65_535);
const identifier = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be an identifier (letters, digits, _)');

const settingsSchema = z.strictObject({
  namespace: z.string().min(1),
  taskQueue: z.string().min(1),
  workflowRetention: z.string(),
  devServer: z.strictObject({
    ip: z.string().min(1),
    port,
    uiPort: port,
    dbFile: z.string().min(1),
  }),
  searchAttributes: z.record(identifier, z.enum(SEARCH_ATTRIBUTE_TYPES)),
});

export type TemporalSettings = Readonly<Omit<z.infer<typeof settingsSchema>, 'workflowRetention'> & { workflowRetentionMs: number }>;

export class TemporalSettingsError extends Error {
  override name = 'TemporalSettingsError';
}

/** Parses and validates a temporal.yaml; the error names the file and the offending field. */
export function loadTemporalSettings(file: string = TEMPORAL_SETTINGS_FILE): TemporalSettings {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TemporalSettingsError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const result = settingsSchema.safeParse(document);
  if (!result.success) {
    throw new TemporalSettingsError(`${file} is not valid:\n${z.prettifyError(result.error)}`);
  }
  const { workflowRetention, ...rest } = result.data;
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
