// The kinds of environment variable, as TypeBox schemas. Each carries what the configuration reference shows: `description` (one line), `default` (applied
// before validation, so it passes the same checks), or `defaultText` where the default is worked out from other variables. A variable without `default` is
// wrapped in Type.Optional where it is declared, and reads as undefined when unset.

import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox';
import { decodeKey, FORMATS, parseDelay, parseDuration, type FormatName, type LogLevel } from './formats.ts';

export type Docs = Readonly<{ description: string; defaultText?: string }>;
type Defaulted<T> = Docs & Readonly<{ default: T }>;

/** A whole number from 1 to `max`. */
export function integer(max: number, docs: Docs & { default?: number }) {
  return Type.Integer({ minimum: 1, maximum: max, ...docs });
}

/** `true`/`1` or `false`/`0`. */
export function flag(docs: Defaulted<boolean>) {
  return Type.Boolean(docs);
}

/** Free text, such as a secret or a name. */
export function text(docs: Docs & { default?: string }) {
  return Type.String(docs);
}

/** One of a few words. */
export function oneOf<const T extends string>(values: readonly T[], docs: Defaulted<NoInfer<T>>) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    docs,
  );
}

// TypeBox asks every Transform for an Encode too; configuration is only ever decoded.
function formatted<T>(format: FormatName, options: Omit<SchemaOptions, 'format'>, decode: (raw: string) => T) {
  return Type.Transform(Type.String({ format, ...options }))
    .Decode(decode)
    .Encode((value) => String(value));
}

/** `500ms`, `10s`, `15m`, `24h` or `30d`, read as milliseconds. */
export function duration(name: string, docs: Defaulted<string>) {
  return formatted('duration', docs, (raw) => parseDuration(name, raw));
}

/** A duration that may be zero. */
export function delay(name: string, docs: Docs) {
  return formatted('delay', docs, (raw) => parseDelay(name, raw));
}

type UrlFormat = 'http-url' | 'postgres-url' | 'smtp-url';

/** A URL of the format's schemes, without trailing slashes (`asWritten` keeps them). */
export function url(format: UrlFormat, { asWritten, ...docs }: Docs & { default?: string; asWritten?: boolean }) {
  return formatted(format, docs, (raw) => (asWritten ? raw : raw.replace(/\/+$/, '')));
}

/** `host:port`. */
export function hostPort(docs: Docs) {
  return formatted('host-port', docs, (raw) => raw);
}

/** A comma-separated list of domain names, read lower-case. */
export function domainList(docs: Defaulted<string>) {
  return formatted('domain-list', docs, (raw) =>
    raw
      .split(',')
      .map((domain) => domain.trim().toLowerCase())
      .filter((domain) => domain !== ''),
  );
}

/** `10/15m`: a count per window. */
export function countPerWindow(name: string, docs: Defaulted<string>) {
  return formatted('count-per-window', docs, (raw) => {
    const [count, window] = raw.split('/') as [string, string];
    return { count: Number(count), windowMs: parseDuration(name, window) };
  });
}

/** 32 bytes as 64 hex digits or base64, read as 64 hex digits. */
export function aesKey(docs: Defaulted<string>) {
  return formatted('aes-256-key', docs, (raw) => decodeKey(raw).toString('hex'));
}

/** A log level, in any case. */
export function logLevel(docs: Defaulted<LogLevel>) {
  return formatted('log-level', docs, (raw) => raw.toLowerCase() as LogLevel);
}

/** A string of a format with its own decoding (RALLY_TRUST_PROXY). */
export function custom<T>(format: FormatName, docs: Defaulted<string>, decode: (raw: string) => T) {
  return formatted(format, docs, decode);
}

/** The words a variable's error and reference row use for what it accepts. */
export function expected(schema: TSchema): { words: string; echo: boolean } {
  if (typeof schema.format === 'string') return { words: FORMATS[schema.format as FormatName].expected, echo: FORMATS[schema.format as FormatName].echo };
  if (schema.type === 'integer') return { words: `a whole number between ${schema.minimum} and ${schema.maximum}`, echo: true };
  if (schema.type === 'boolean') return { words: 'true or false', echo: true };
  if (Array.isArray(schema.anyOf)) {
    const words = (schema.anyOf as TSchema[]).map((option) => String(option.const));
    return { words: `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`, echo: true };
  }
  return { words: 'a non-empty value', echo: false };
}
