// "Never email me again": every guest signing email carries a link that stops all guest mail to its address for good, since whoever typed the address into a
// form may not own it. Rally keeps only a keyed hash of the address's normalised key (rally_email_key, as the caps count it), and the link carries that hash
// with a MAC, so a stranger can neither forge a link for an address nor fill the table.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export type MailStopKey = { readonly key: Buffer };

// An HMAC key derived from RALLY_ENCRYPTION_KEY, like the network-block hashes. The normalised key folds a +tag
// into the mailbox it reaches.
export function mailStopKey(encryptionKeyHex: string): MailStopKey {
  return { key: createHmac('sha256', Buffer.from(encryptionKeyHex, 'hex')).update('rally:guest-mail-stop').digest() };
}

/** What the table keeps of an address: the HMAC of its normalised key (guest_signatures.email_key). */
export const addressHash = ({ key }: MailStopKey, emailKey: string): Buffer => createHmac('sha256', key).update(`address:${emailKey}`).digest();

const linkMac = ({ key }: MailStopKey, hash: Buffer) => createHmac('sha256', key).update('link:').update(hash).digest().subarray(0, 18);

/** The link's last path segment: `<address hash>.<MAC of it>`, both base64url. */
export function mailStopToken(key: MailStopKey, emailKey: string): string {
  const hash = addressHash(key, emailKey);
  return `${hash.toString('base64url')}.${linkMac(key, hash).toString('base64url')}`;
}

export const mailStopUrl = (publicUrl: string, token: string) => `${publicUrl}/guest-emails/unsubscribe/${token}`;

/** The address hash of a link Rally made (MAC compared in constant time), or null. */
export function parseMailStopToken(key: MailStopKey, token: string): Buffer | null {
  const match = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{24})$/.exec(token);
  if (!match) return null;
  const hash = Buffer.from(match[1]!, 'base64url');
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = linkMac(key, hash);
  return hash.length === 32 && given.length === expected.length && timingSafeEqual(given, expected) ? hash : null;
}

/** Stops all guest mail to the address of `hash` (again: nothing changes). */
export async function stopGuestMail(db: CommonQueryMethods, hash: Buffer): Promise<void> {
  await db.query(sql.typeAlias('void')`
    INSERT INTO guest_mail_stops (address_hash) VALUES (${sql.binary(hash)}) ON CONFLICT (address_hash) DO NOTHING
  `);
}

/** Which of these normalised addresses stopped guest mail. */
export async function stoppedAddresses(db: CommonQueryMethods, key: MailStopKey, emailKeys: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(emailKeys)];
  if (unique.length === 0) return new Set();
  const hashes = unique.map((emailKey) => addressHash(key, emailKey).toString('hex'));
  const stopped = new Set(
    await db.anyFirst(sql.type(z.object({ hash: z.string() }))`
      SELECT encode(address_hash, 'hex') AS hash FROM guest_mail_stops
      WHERE address_hash = ANY(SELECT decode(h, 'hex') FROM unnest(${sql.array(hashes, 'text')}) AS h)
    `),
  );
  return new Set(unique.filter((_, index) => stopped.has(hashes[index]!)));
}
