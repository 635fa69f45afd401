// One-click unsubscribe (RFC 8058): each notification email carries a link that turns off the email channel of its type (or of every type, from a digest)
// without logging in. The link's token is the user id and type, signed with an HMAC keyed from the service's encryption key, so it cannot be forged for someone
// else; it changes nothing but an email preference, so it needs no expiry.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { NotFound } from '../errors/domain-error.ts';
import { NOTIFICATION_TYPES } from '../vocabulary.ts';
import { mergePreferences } from './queries.ts';

/** `*`: every notification type (the link of a digest). */
export type UnsubscribeScope = string;

const signature = (keyHex: string, payload: string) =>
  createHmac('sha256', Buffer.from(keyHex, 'hex')).update(`rally-unsubscribe:${payload}`).digest().subarray(0, 20);

export function unsubscribeToken(keyHex: string, userId: string, scope: UnsubscribeScope): string {
  const payload = Buffer.from(`${userId}:${scope}`, 'utf8').toString('base64url');
  return `${payload}.${signature(keyHex, payload).toString('base64url')}`;
}

export const unsubscribeUrl = (publicUrl: string, token: string) => `${publicUrl}/v1/notifications/unsubscribe/${token}`;

function verify(keyHex: string, token: string): { userId: string; scope: string } | undefined {
  const [payload, presented, ...rest] = token.split('.');
  if (!payload || !presented || rest.length > 0) return undefined;
  const expected = signature(keyHex, payload);
  const given = Buffer.from(presented, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [userId, scope] = Buffer.from(payload, 'base64url').toString('utf8').split(':');
  if (!userId || !scope || (scope !== '*' && !(NOTIFICATION_TYPES as readonly string[]).includes(scope))) return undefined;
  return { userId, scope };
}

/** Turns the email channel off; returns the types changed. 404 for a token this service did not sign. */
export async function unsubscribe(db: DatabasePool, keyHex: string, token: string): Promise<string[]> {
  const verified = verify(keyHex, token);
  if (!verified) throw new NotFound('This unsubscribe link is not valid.');
  const types = verified.scope === '*' ? [...NOTIFICATION_TYPES] : [verified.scope];
  await mergePreferences(db, verified.userId, Object.fromEntries(types.map((type) => [type, { email: false }])));
  return types;
}
