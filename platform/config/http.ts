// The API process: its mode, address, public origin, shutdown, proxies, WebSockets and search.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config, TrustProxy } from './types.ts';
import { custom, delay, duration, integer, oneOf, url } from './variables.ts';

export const httpVariables = {
  NODE_ENV: oneOf(['development', 'test', 'production'], {
    default: 'development',
    description:
      '`development`, `test` or `production`. Unset is only accepted when `PUBLIC_URL` is a loopback ' +
      'address. Production refuses `RALLY_WEBHOOK_ALLOW_PRIVATE=true` and refuses the built-in development ' +
      'secrets (`OIDC_CLIENT_SECRET`, `RALLY_ENCRYPTION_KEY`, `RALLY_MEDIA_SIGNING_KEY`), requires ' +
      '`RALLY_METRICS_TOKEN` where `/metrics` is served, requires `https` webhook URLs and refuses `rally ' +
      'loadtest users`.',
  }),
  PORT: integer(65_535, { default: 3000, description: 'HTTP port of the API (listens on all interfaces)' }),
  PUBLIC_URL: Type.Optional(
    url('http-url', {
      defaultText: '`http://localhost:$PORT`',
      description: 'origin used in links, problem `type`s and portal links. It is also the **audience** (`aud`) every access token must carry.',
    }),
  ),
  RALLY_API_SHUTDOWN_DELAY: Type.Optional(
    delay('RALLY_API_SHUTDOWN_DELAY', {
      defaultText: '`5s` in production, `0s` otherwise',
      description: 'after SIGTERM, `/health/ready` answers 503 for this long while the API keeps serving, then it stops accepting and drains',
    }),
  ),
  RALLY_TRUST_PROXY: custom(
    'trust-proxy',
    {
      default: 'false',
      description:
        'how many proxies stand in front of Rally (`1`, `2`, …; `true` means `1`), or a comma-separated list ' +
        'of their addresses/CIDR ranges (`10.0.0.0/8,2001:db8::/32`). The client address is read from the ' +
        'right of `X-Forwarded-For`, past trusted hops only.',
    },
    readTrustProxy,
  ),
  RALLY_WS_MAX_PER_ADDRESS: integer(100_000, {
    default: 50,
    description:
      'open `/v1/realtime` WebSocket connections per client address; more are refused with 429. Each ' +
      'connection may follow 50 petitions and send 20 messages a second (close 1008 beyond), and must ' +
      'answer a ping every 30 s.',
  }),
  RALLY_SEARCH_TIMEOUT: duration('RALLY_SEARCH_TIMEOUT', {
    default: '2s',
    description: 'a search or suggestion slower than this answers 503 `search-unavailable` with `Retry-After`',
  }),
  RALLY_PAGE_VIEW_FLUSH_INTERVAL: duration('RALLY_PAGE_VIEW_FLUSH_INTERVAL', {
    default: '10s',
    description: 'how often each API process writes the petition page and widget views it counted in memory',
  }),
};

// `false` or `0`: no proxy is believed; `true`: one hop; else hops or the proxies' addresses.
function readTrustProxy(raw: string): TrustProxy {
  if (raw === 'false' || /^0+$/.test(raw)) return false;
  if (raw === 'true') return Object.freeze({ hops: 1 });
  if (/^\d+$/.test(raw)) return Object.freeze({ hops: Number(raw) });
  return Object.freeze({ cidrs: Object.freeze(raw.split(',').map((entry) => entry.trim())) });
}

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof httpVariables>>>;

export function httpSettings(values: Values) {
  const publicUrl = values.PUBLIC_URL ?? `http://localhost:${values.PORT}`;
  return {
    nodeEnv: values.NODE_ENV,
    port: values.PORT,
    publicUrl,
    // Behind a load balancer, readiness must fail for a few probe intervals before connections close.
    apiReadinessDelayMs: values.RALLY_API_SHUTDOWN_DELAY ?? (values.NODE_ENV === 'production' ? 5_000 : 0),
    trustProxy: values.RALLY_TRUST_PROXY,
    realtimeMaxPerAddress: values.RALLY_WS_MAX_PER_ADDRESS,
    search: Object.freeze({ timeoutMs: values.RALLY_SEARCH_TIMEOUT, pageViewFlushMs: values.RALLY_PAGE_VIEW_FLUSH_INTERVAL }),
    // Fixed in code (docs/operations/configuration.md, below the table).
    bodyLimitBytes: 1024 * 1024,
    idempotencyTtlMs: 24 * 3_600_000,
  } satisfies Partial<Config> & { apiReadinessDelayMs: number };
}
