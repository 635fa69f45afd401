// The Temporal client of a process that starts, signals, updates and queries workflows (the API, and
// the worker's dispatcher and activities): every start gets a Web UI summary and carries the trace.
import { Client, type ClientOptions, Connection } from '@temporalio/client';
import type { Config } from '../platform/config.ts';
import { temporalConnectionOptions } from '../platform/temporal-connection.ts';
import { tracingClientInterceptors } from '../platform/telemetry.ts';
import { SummaryMemoInterceptor } from './summaries.ts';

/** What every start needs: the client, and the task queue the workers poll. */
export type Temporal = { client: Client; taskQueue: string };

// The outbox dispatcher calls Temporal while it holds locked rows: a Temporal that hangs must not hold them long.
const LOCKED_ROWS_DEADLINE_MS = 10_000;

/** Runs a call the worker's dispatcher makes with rows locked, failing it after LOCKED_ROWS_DEADLINE_MS. */
export function promptly<T>(temporal: Temporal, call: () => Promise<T>): Promise<T> {
  return temporal.client.withDeadline(Date.now() + LOCKED_ROWS_DEADLINE_MS, call);
}

export async function connectTemporal(settings: Config['temporal']): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect(temporalConnectionOptions(settings));
  return { connection, client: clientOn(connection, settings) };
}

/**
 * A client on a connection already open. The worker gives its dispatcher a client on the worker's
 * own NativeConnection, which lets the dispatcher start delivery batches eagerly (the server hands
 * the first task straight back to this worker instead of through its task queue).
 */
export function clientOn(connection: ClientOptions['connection'], settings: Config['temporal']): Client {
  return new Client({
    connection,
    namespace: settings.namespace,
    interceptors: { workflow: [new SummaryMemoInterceptor(), ...tracingClientInterceptors()] },
  });
}
