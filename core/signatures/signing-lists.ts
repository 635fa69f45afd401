// The administrators' allow- and block-lists of signers (issue 44): addresses, networks (CIDR) and email domains (`*.example.org`: its subdomains). Entries are
// normalised when added, so that one subject is listed once, and every change is audit-logged in the same transaction. The API's processes match against them
// in memory (signing-list-cache.ts), told of changes by the database.
import { BlockList, isIP } from 'node:net';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { ensure, invalidField, NotFound } from '../errors/domain-error.ts';

export const SIGNING_LISTS = ['allow', 'block'] as const;
export const SIGNING_LIST_SUBJECT_TYPES = ['address', 'network', 'email_domain'] as const;
export const SIGNING_LISTS_CHANNEL = 'rally_signing_lists_changed';

export const SigningListEntry = z.object({
  id: z.string(),
  list: z.enum(SIGNING_LISTS),
  subject_type: z.enum(SIGNING_LIST_SUBJECT_TYPES),
  subject: z.string(),
  exempt_address_limit: z.boolean(),
  note: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.string(),
});
export type SigningListEntry = z.infer<typeof SigningListEntry>;

export type NewSigningListEntry = Pick<SigningListEntry, 'list' | 'subject_type' | 'subject' | 'exempt_address_limit' | 'note'>;

const DOMAIN = /^(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const COLUMNS = sql.fragment`id, list, subject_type, subject, exempt_address_limit, note, created_by, created_at`;

/** The subject as stored: an address or network as node:net writes it, a domain lower-case. */
export function normaliseSubject(type: NewSigningListEntry['subject_type'], subject: string): string {
  const text = subject.trim().toLowerCase();
  if (type === 'email_domain') {
    if (!DOMAIN.test(text)) throw invalidField('subject', 'invalid_domain', 'must be a domain name, or *. and a domain for its subdomains');
    return text;
  }
  const [address, prefixText] = text.split('/') as [string, string | undefined];
  const family = isIP(address);
  if (family === 0) throw invalidField('subject', 'invalid_address', 'must be an IPv4 or IPv6 address');
  if (type === 'address') {
    if (prefixText !== undefined) throw invalidField('subject', 'invalid_address', 'an address has no prefix length: list a network instead');
    return address;
  }
  const prefix = Number(prefixText);
  if (prefixText === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
    throw invalidField('subject', 'invalid_network', 'must be a network in CIDR notation, such as 192.0.2.0/24 or 2001:db8::/48');
  }
  return `${address}/${prefix}`;
}

export function listSigningListEntries(db: CommonQueryMethods) {
  return db.any(sql.type(SigningListEntry)`SELECT ${COLUMNS} FROM signing_list_entries ORDER BY created_at, id`);
}

export async function addSigningListEntry(db: DatabasePool, entry: NewSigningListEntry, audit: AuditContext): Promise<SigningListEntry> {
  const subject = normaliseSubject(entry.subject_type, entry.subject);
  if (entry.exempt_address_limit && entry.list !== 'allow') {
    throw invalidField('exempt_address_limit', 'exemption_allow_only', 'only an allowed entry can be exempt from the per-address limit');
  }
  return db.transaction(async (tx) => {
    const row = await tx.one(sql.type(SigningListEntry)`
      INSERT INTO signing_list_entries (list, subject_type, subject, exempt_address_limit, note, created_by)
      VALUES (${entry.list}, ${entry.subject_type}, ${subject}, ${entry.exempt_address_limit}, ${entry.note}, ${audit.actorId})
      ON CONFLICT ON CONSTRAINT signing_list_entries_once
        DO UPDATE SET exempt_address_limit = EXCLUDED.exempt_address_limit, note = EXCLUDED.note
      RETURNING ${COLUMNS}`);
    await recordAudit(tx, { context: audit, action: 'signing_list.entry_added', target: { type: 'signing_list_entry', id: row.id }, after: row });
    return row;
  });
}

export async function removeSigningListEntry(db: DatabasePool, id: string, audit: AuditContext): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(SigningListEntry)`DELETE FROM signing_list_entries WHERE id = ${id} RETURNING ${COLUMNS}`);
    ensure(row, NotFound, 'There is no such signing list entry.');
    await recordAudit(tx, { context: audit, action: 'signing_list.entry_removed', target: { type: 'signing_list_entry', id }, before: row });
  });
}

/** What the lists say of one signer, dimension by dimension. */
export type ListVerdict = { blocked: boolean; networkAllowed: boolean; domainAllowed: boolean; exemptAddressLimit: boolean };

/** The lists compiled for matching: node:net BlockLists for addresses and networks, sets for domains. */
export function compileSigningLists(entries: readonly Pick<SigningListEntry, 'list' | 'subject_type' | 'subject' | 'exempt_address_limit'>[]) {
  const addresses = { allow: new BlockList(), block: new BlockList(), exempt: new BlockList() };
  const domains = { allow: new Set<string>(), block: new Set<string>() };
  for (const entry of entries) {
    if (entry.subject_type === 'email_domain') {
      domains[entry.list].add(entry.subject);
      continue;
    }
    const [address, prefix] = entry.subject.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    const lists = [addresses[entry.list], ...(entry.exempt_address_limit ? [addresses.exempt] : [])];
    for (const list of lists) {
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    }
  }
  /** `a.b.example.org` is listed as itself, or as `*.b.example.org` or `*.example.org`. */
  const domainListed = (set: Set<string>, domain: string) =>
    set.has(domain) || domain.split('.').some((_, index, labels) => index > 0 && set.has(`*.${labels.slice(index).join('.')}`));
  const addressListed = (list: BlockList, address: string) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const ip = mapped ? mapped[1]! : address;
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };
  return {
    empty: entries.length === 0,
    verdict(address: string, domain: string | null): ListVerdict {
      return {
        blocked: addressListed(addresses.block, address) || (domain !== null && domainListed(domains.block, domain)),
        networkAllowed: addressListed(addresses.allow, address),
        domainAllowed: domain !== null && domainListed(domains.allow, domain),
        exemptAddressLimit: addressListed(addresses.exempt, address),
      };
    },
  };
}
