// The string formats of Rally's environment variables, registered with TypeBox so the schema can name them. Each says in words what it expects (for the
// one-line error and the configuration reference), and whether a bad value may be echoed back: URLs and keys may hold credentials, so they never are.
// ConfigError and the duration parsers live here too: they are what the formats decode with.

import { isIP } from 'node:net';
import { FormatRegistry } from '@sinclair/typebox';

export class ConfigError extends Error {
  override name = 'ConfigError';

  /** One sentence per bad variable, each naming it. */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.join('\n'));
    this.problems = list;
  }
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const DURATION_WORDS = 'a duration such as 500ms, 10s, 15m, 24h or 30d';

/** Parses `500ms`, `10s`, `15m`, `24h`, `30d` into milliseconds. */
export function parseDuration(name: string, raw: string): number {
  const match = DURATION.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be ${DURATION_WORDS} (got "${raw}")`);
  const value = Number(match[1]) * DURATION_UNITS_MS[match[2] as string]!;
  if (value <= 0) throw new ConfigError(`${name} must be longer than zero`);
  return value;
}

/** A duration that may be zero (`0s`, `0`): for delays that are off by default. */
export function parseDelay(name: string, raw: string): number {
  return /^0+(ms|s|m|h|d)?$/.test(raw.trim()) ? 0 : parseDuration(name, raw);
}

function isUrl(raw: string, protocols: readonly string[]): boolean {
  const parsed = URL.parse(raw);
  return parsed !== null && protocols.includes(parsed.protocol);
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const maxPrefix = family === 6 ? 128 : 32;
  return family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= maxPrefix));
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Format = Readonly<{ expected: string; check: (value: string) => boolean; echo: boolean }>;

export const FORMATS = {
  duration: { expected: `${DURATION_WORDS}, longer than zero`, check: (value) => DURATION.test(value.trim()) && !/^0+[a-z]+$/.test(value.trim()), echo: true },
  'duration-or-off': {
    expected: `${DURATION_WORDS}, longer than zero, or off`,
    check: (value) => value.trim() === 'off' || (DURATION.test(value.trim()) && !/^0+[a-z]+$/.test(value.trim())),
    echo: true,
  },
  delay: { expected: `${DURATION_WORDS} (0s turns it off)`, check: (value) => DURATION.test(value.trim()) || /^0+$/.test(value.trim()), echo: true },
  'http-url': { expected: 'an http: or https: URL', check: (value) => isUrl(value, ['http:', 'https:']), echo: false },
  'postgres-url': { expected: 'a postgres: or postgresql: URL', check: (value) => isUrl(value, ['postgres:', 'postgresql:']), echo: false },
  'smtp-url': { expected: 'an smtp: or smtps: URL', check: (value) => isUrl(value, ['smtp:', 'smtps:']), echo: false },
  'host-port': { expected: 'host:port', check: (value) => /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(value), echo: true },
  'domain-list': {
    expected: 'a comma-separated list of domain names',
    check: (value) =>
      value
        .split(',')
        .map((domain) => domain.trim())
        .filter(Boolean)
        .every((domain) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(domain)),
    echo: true,
  },
  'trust-proxy': {
    expected: 'false, true, a number of hops up to 100, or a comma-separated list of addresses/CIDR ranges',
    check: (value) =>
      /^(true|false)$/.test(value) || (/^\d+$/.test(value) && Number(value) <= 100) || value.split(',').every((entry) => isAddressOrRange(entry.trim())),
    echo: true,
  },
  'count-per-window': {
    expected: `a count and a window such as 10/15m (${DURATION_WORDS})`,
    check: (value) => /^[1-9]\d*\/\d+(ms|s|m|h|d)$/.test(value) && !/\/0+[a-z]+$/.test(value),
    echo: true,
  },
  'aes-256-key': { expected: '32 bytes, as 64 hex digits or base64', check: (value) => decodeKey(value).length === 32, echo: false },
  'log-level': { expected: 'debug, info, warn or error', check: (value) => (LOG_LEVELS as readonly string[]).includes(value.toLowerCase()), echo: true },
} satisfies Record<string, Format>;

export type FormatName = keyof typeof FORMATS;

/** RALLY_ENCRYPTION_KEY's two spellings. */
export function decodeKey(raw: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
}

for (const [name, format] of Object.entries(FORMATS)) FormatRegistry.Set(name, format.check);
