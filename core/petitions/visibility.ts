// Who may know of, read, list and manage a petition, written ONCE as data: rules built from conditions, each carrying its TypeScript test (for a loaded row)
// and its SQL (for a table alias) side by side. policy.ts turns the rules into predicates and fragments; test/core/petitions/ checks both halves against one
// matrix, and petition-sql-scan.unit.test.ts fails on a query that filters petitions without them.
import { timingSafeEqual } from 'node:crypto';
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import { PUBLISHED_PETITION_STATUSES, type PetitionStatus, type PetitionVisibility } from '../vocabulary.ts';

/** Whoever looks at petitions; built from the request's Principal by viewerOf (policy.ts). */
export type Viewer = {
  userId: string | null;
  role: 'user' | 'admin';
  /** Organizations whose petitions this viewer manages. */
  administeredOrganizationIds: readonly string[];
};

/** What the rules look at; a PetitionRow has all of it. */
export type PetitionAccessFacts = {
  creator_id: string;
  org_id: string | null;
  status: PetitionStatus;
  visibility: PetitionVisibility;
  access_code: string | null;
  deleted_at?: string | null;
};

type Context = { viewer: Viewer; accessCode?: string | null };
/** SQL for alias `a`, or a constant the viewer alone decides (folded away by all/any). */
type Sql = FragmentSqlToken | boolean;
type Condition = { test: (row: PetitionAccessFacts, context: Context) => boolean; sql: (a: string, context: Context) => Sql };

export function accessCodeMatches(expected: string | null, presented: string | undefined | null): boolean {
  if (!expected || presented === undefined || presented === null) return false;
  const a = Buffer.from(expected.toUpperCase());
  const b = Buffer.from(presented.trim().toUpperCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

const column = (a: string, name: string) => sql.identifier([a, name]);
// Literal statuses and visibilities (not parameters), so PostgreSQL can match the partial indexes of
// migrations 0005 and 0015, whose predicates are written with these lists.
const literals = (values: readonly string[]) =>
  sql.join(
    values.map((value) => sql.literalValue(value)),
    sql.fragment`, `,
  );

// --- The conditions: each one, in both languages.
const live: Condition = { test: (row) => !row.deleted_at, sql: (a) => sql.fragment`${column(a, 'deleted_at')} IS NULL` };
const published: Condition = {
  test: (row) => (PUBLISHED_PETITION_STATUSES as readonly string[]).includes(row.status),
  sql: (a) => sql.fragment`${column(a, 'status')} IN (${literals(PUBLISHED_PETITION_STATUSES)})`,
};
const statusIs = (status: PetitionStatus): Condition => ({
  test: (row) => row.status === status,
  sql: (a) => sql.fragment`${column(a, 'status')} = ${sql.literalValue(status)}`,
});
const visibilityIs = (visibility: PetitionVisibility): Condition => ({
  test: (row) => row.visibility === visibility,
  sql: (a) => sql.fragment`${column(a, 'visibility')} = ${sql.literalValue(visibility)}`,
});
const not = (condition: Condition): Condition => ({
  test: (row, context) => !condition.test(row, context),
  sql: (a, context) => {
    const inner = condition.sql(a, context);
    return typeof inner === 'boolean' ? !inner : sql.fragment`NOT (${inner})`;
  },
});
const viewerIsAdmin: Condition = { test: (_row, { viewer }) => viewer.role === 'admin', sql: (_a, { viewer }) => viewer.role === 'admin' };
/** The creator, or an administrator of the petition's organization. */
const managedByViewer: Condition = {
  test: (row, { viewer }) =>
    (viewer.userId !== null && row.creator_id === viewer.userId) || (row.org_id !== null && viewer.administeredOrganizationIds.includes(row.org_id)),
  sql: (a, { viewer }) => {
    const clauses: FragmentSqlToken[] = [];
    if (viewer.userId !== null) clauses.push(sql.fragment`${column(a, 'creator_id')} = ${viewer.userId}::uuid`);
    if (viewer.administeredOrganizationIds.length > 0)
      clauses.push(sql.fragment`${column(a, 'org_id')} = ANY(${sql.array([...viewer.administeredOrganizationIds], 'uuid')})`);
    return clauses.length === 0 ? false : sql.fragment`(${sql.join(clauses, sql.fragment` OR `)})`;
  },
};
const accessCodeGiven: Condition = {
  test: (row, { accessCode }) => accessCodeMatches(row.access_code, accessCode),
  sql: (a, { accessCode }) => (accessCode ? sql.fragment`upper(${column(a, 'access_code')}) = upper(btrim(${accessCode}::text))` : false),
};

function combine(conditions: Condition[], joiner: 'AND' | 'OR'): Condition {
  const absorbing = joiner === 'OR';
  return {
    test: (row, context) => (absorbing ? conditions.some((c) => c.test(row, context)) : conditions.every((c) => c.test(row, context))),
    sql: (a, context) => {
      const parts: FragmentSqlToken[] = [];
      for (const condition of conditions) {
        const part = condition.sql(a, context);
        if (part === absorbing) return absorbing;
        if (typeof part !== 'boolean') parts.push(part);
      }
      if (parts.length === 0) return !absorbing;
      return parts.length === 1 ? parts[0]! : sql.fragment`(${sql.join(parts, joiner === 'AND' ? sql.fragment` AND ` : sql.fragment` OR `)})`;
    },
  };
}
const all = (...conditions: Condition[]) => combine(conditions, 'AND');
const any = (...conditions: Condition[]) => combine(conditions, 'OR');

// --- The rules. Deleted petitions: nobody. Platform admins moderate, so they know of and read
// everything live by its link, but lists stay public and management stays with the managers.
export const RULES = {
  /** The viewer may learn the petition exists (else 404), access code or not. */
  knows: all(live, any(managedByViewer, viewerIsAdmin, published)),
  /** The viewer may read it by its link (a private one with its access code). */
  reads: all(live, any(managedByViewer, viewerIsAdmin, all(published, any(not(visibilityIs('private')), accessCodeGiven)))),
  /** It belongs in the viewer's lists, exports and counts. */
  lists: all(live, any(managedByViewer, all(visibilityIs('public'), published))),
  /** The viewer is its creator or administers its organization (live or not: combine with another rule). */
  managed: managedByViewer,
  /** The viewer may edit, delete, publish, close it and so on. */
  manages: all(live, managedByViewer),
  /** A public or unlisted petition under review, shown to whoever may not read it as a notice (no content). */
  reviewNotice: all(live, statusIs('under_review'), not(visibilityIs('private')), not(managedByViewer), not(viewerIsAdmin)),
} as const satisfies Record<string, Condition>;
export type RuleName = keyof typeof RULES;

export function holds(rule: RuleName, viewer: Viewer, row: PetitionAccessFacts, accessCode?: string | null): boolean {
  return RULES[rule].test(row, { viewer, accessCode });
}

/** The rule as a condition on the petitions table under `alias` (a query reads `FROM petitions <alias>`). */
export function fragment(rule: RuleName, viewer: Viewer, alias = 'p', accessCode?: string | null): FragmentSqlToken {
  const condition = RULES[rule].sql(alias, { viewer, accessCode });
  return typeof condition === 'boolean' ? (condition ? sql.fragment`true` : sql.fragment`false`) : sql.fragment`(${condition})`;
}
