// Structured one-line JSON logs on stdout (info, debug) and stderr (warn, error), each carrying the ids of where it was written (`request_id`, `workflow_id`,
// `run_id`, `activity`, `attempt`, `trace_id`/`span_id`), so `grep <id>` follows one signature end to end. Callers pass facts, never credentials: request
// bodies and Authorization headers are logged nowhere.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { LogLevel } from './config.ts';
import { redactSecretUrls } from './secret-urls.ts';

export type Logger = {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

export type LogFields = Record<string, unknown>;

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold = SEVERITY.info;
const context = new AsyncLocalStorage<LogFields>();

/** LOG_LEVEL: lines below it are dropped (the process's entry point calls this once). */
export function setLogLevel(level: LogLevel): void {
  threshold = SEVERITY[level];
}

/**
 * Runs `run` with `fields` added to every line logged inside it, however deep the calls go.
 * `request_id` is set inside an API request, `workflow_id`, `run_id`, `activity` and `attempt` inside an
 * activity; `trace_id`/`span_id` come with an active trace.
 */
export function withLogContext<T>(fields: LogFields, run: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, run);
}

// As a safety net, fields named like secrets are replaced, token-shaped values are masked, and so are the
// credentials in any of Rally's own URLs a line holds (platform/secret-urls.ts).
// Field names whose values are never written. `trace_id`-like ids and counts stay readable.
const SECRET_FIELD = /secret|password|passphrase|token|authorization|cookie|api_?key|credential/i;
const SAFE_FIELDS = new Set(['token_type', 'token_count']);
// Values that look like credentials wherever they appear (in messages, errors, URLs).
const SECRET_VALUES: [RegExp, string][] = [
  [/\brally_(live|test)_[A-Za-z0-9_-]{6,}/g, 'rally_$1_[redacted]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, '[redacted jwt]'],
  [/(\/\/[^/\s:@"]+:)[^@\s/"]+@/g, '$1[redacted]@'],
];

function redactField(key: string, value: unknown): unknown {
  return key !== '' && SECRET_FIELD.test(key) && !SAFE_FIELDS.has(key) && value !== null && typeof value !== 'object' ? '[redacted]' : value;
}

/** A log line as written (exported for the Temporal logger adapter, which builds its own fields). */
export function formatLine(level: LogLevel, component: string, message: string, fields?: LogFields): string {
  const span = trace.getActiveSpan()?.spanContext();
  const traced = span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
  const entry = { time: new Date().toISOString(), level, component, message, ...context.getStore(), ...traced, ...fields };
  let line = JSON.stringify(entry, redactField);
  for (const [pattern, replacement] of SECRET_VALUES) line = line.replace(pattern, replacement);
  return `${redactSecretUrls(line)}\n`;
}

export function writeLog(level: LogLevel, component: string, message: string, fields?: LogFields): void {
  if (SEVERITY[level] < threshold) return;
  (SEVERITY[level] >= SEVERITY.warn ? process.stderr : process.stdout).write(formatLine(level, component, message, fields));
}

export function createLogger(component: string): Required<Logger> {
  return {
    debug: (message, fields) => writeLog('debug', component, message, fields),
    info: (message, fields) => writeLog('info', component, message, fields),
    warn: (message, fields) => writeLog('warn', component, message, fields),
    error: (message, fields) => writeLog('error', component, message, fields),
  };
}

/** For tests and tools that want silence. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
