// Per-request state shared by the middleware stack, and the response envelopes built from it.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/auth/principal.ts';
import type { IdempotencyTicket } from '../../core/idempotency/remembered-answers.ts';

export type { Principal };
import type { Middleware, ParameterizedContext } from 'koa';
import type { TrustProxy } from '../../platform/config.ts';
import { createClientAddressResolver } from './client-address.ts';
import { withLogContext } from '../../platform/logger.ts';

/** Who is calling; filled by the authentication middleware. */

export type RallyState = {
  requestId: string;
  clientIp: string;
  principal?: Principal;
  /** An app-only token (client_credentials without an owner): no principal, only this app's client id. */
  appOnlyClientId?: string;
  /** Set when the request claimed an Idempotency-Key (idempotency.ts), for answers stored with the write. */
  idempotency?: IdempotencyTicket;
  /** The matched route's path template (`/v1/petitions/:id`), set by the dispatcher: metrics and logs name it, never the raw path. */
  route?: string;
  /** The signing thresholds this request's signature passed (limits.ts): it is accepted and flagged with them. */
  signingFlags?: readonly ('network_block' | 'email_domain')[];
};

export type RallyContext = ParameterizedContext<RallyState>;

// A client's own request id is kept when it is a plausible token, so traces join up across services.
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function createRequestContextMiddleware(options: { trustProxy: TrustProxy }): Middleware<RallyState> {
  const clientAddress = createClientAddressResolver(options.trustProxy);
  return async function assignRequestContext(ctx, next) {
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.state.clientIp = clientAddress(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For'));
    // Every line logged while this request runs names it.
    await withLogContext({ request_id: ctx.state.requestId }, next);
  };
}

// Formatting a date costs more than most of a cached answer: answers in the same millisecond share one.
let formattedAt = 0;
let formatted = new Date(0).toISOString();
function nowAsIsoString(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = new Date(now).toISOString();
  }
  return formatted;
}

export function meta(ctx: RallyContext) {
  return { request_id: ctx.state.requestId, timestamp: nowAsIsoString() };
}

// Set as a header, so that Koa does not look the type up in its MIME tables for every JSON answer.
const JSON_TYPE = 'application/json; charset=utf-8';

export function sendData(ctx: RallyContext, data: unknown, status = 200): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = { data, meta: meta(ctx) };
}

export type Pagination = { next_cursor: string | null; has_more: boolean; total_count?: number };

export function sendList(ctx: RallyContext, data: unknown[], pagination: Pagination, extra: Record<string, unknown> = {}): void {
  ctx.status = 200;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = { data, pagination, ...extra, meta: meta(ctx) };
}
