// Keyset pagination. A cursor is the base64url JSON of the last row's sort key, so page 1000 costs what page 1 costs. Timestamps keep PostgreSQL's microseconds
// (db/pool.ts), so a row's created_at is an exact position. Cursors are opaque to clients: one that does not decode to the list's own position shape is refused
// before any query runs. Every list's codec is made here and registered under its list's tag, so one test feeds every list's decoder the same hostile cursors.
import type { Static, TSchema } from '@sinclair/typebox';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { sql } from '../../db/sql.ts';
import { DomainError } from '../errors/domain-error.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const cursorAjv = new Ajv({ strict: false });
addFormats(cursorAjv);

export type CursorCodec<S extends TSchema> = {
  /** The list and sort order its cursors belong to, e.g. `petitions:popular`. */
  tag: string;
  /** The position's shape, as given (before the database bounds are added). */
  positionSchema: S;
  encode(position: Static<S>): string;
  decode(cursor: string | undefined): Static<S> | undefined;
};

const codecs = new Map<string, CursorCodec<TSchema>>();

/** Every codec made so far, one per list and sort order (for the tests that attack them all). */
export function cursorCodecs(): CursorCodec<TSchema>[] {
  return [...codecs.values()];
}

// Values PostgreSQL would refuse with an error (a 500) rather than compare: integers beyond int4
// unless the schema says otherwise, numbers beyond what a float8 comparison handles sensibly, and
// year 0000 (a date-time format accepts it, timestamptz does not).
const INT4 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };
const FINITE = { minimum: -1e300, maximum: 1e300 };
const NOT_YEAR_ZERO = '^(?!0000)';

function withDatabaseBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withDatabaseBounds);
  if (schema === null || typeof schema !== 'object') return schema;
  const bounded: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withDatabaseBounds(value)]));
  if (bounded.type === 'integer') Object.assign(bounded, { ...INT4, ...pick(bounded, 'minimum', 'maximum') });
  if (bounded.type === 'number') Object.assign(bounded, { ...FINITE, ...pick(bounded, 'minimum', 'maximum') });
  if (bounded.format === 'date-time' && bounded.pattern === undefined) bounded.pattern = NOT_YEAR_ZERO;
  return bounded;
}
const pick = (object: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]]));

const MAX_CURSOR_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// PostgreSQL's text and uuid types cannot hold a NUL character: compared with one, a query fails
// (a 500) instead of answering.
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsNul);
  return false;
}

/**
 * A codec for one list's sort key, e.g. `Type.Tuple([Type.String({format:'date-time'}), Type.String()])`.
 * `tag` binds the cursor to its list and sort order (e.g. `petitions:popular`): a cursor issued
 * under another tag is refused, however well it would decode. Everything that is not a cursor this
 * codec issued is a 400 invalid-cursor, whatever its bytes, before any query runs.
 */
export function createCursorCodec<S extends TSchema>(positionSchema: S, tag: string): CursorCodec<S> {
  if (codecs.has(tag)) throw new Error(`Two lists share the cursor tag ${tag}: each would accept the other's cursors.`);
  const check = cursorAjv.compile(withDatabaseBounds(JSON.parse(JSON.stringify(positionSchema))) as object);
  const invalid = () => new DomainError('invalid-cursor', 'The cursor is not one this list issued. Request the first page again without a cursor.');
  const codec: CursorCodec<S> = {
    tag,
    positionSchema,
    encode: (position) => Buffer.from(JSON.stringify({ t: tag, p: position }), 'utf8').toString('base64url'),
    decode(cursor) {
      if (cursor === undefined) return undefined;
      if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalid();
      const bytes = Buffer.from(cursor, 'base64url');
      // Base64 decoders drop stray trailing bits: only the canonical spelling of the bytes is a cursor
      // this list issued, so an altered one never decodes to the same position by accident.
      if (bytes.toString('base64url') !== cursor) throw invalid();
      let decoded: unknown;
      try {
        decoded = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw invalid();
      }
      const envelope = decoded as { t?: unknown; p?: unknown } | null;
      if (typeof envelope !== 'object' || envelope === null || envelope.t !== tag) throw invalid();
      const position = envelope.p;
      if (!check(position) || holdsNul(position)) throw invalid();
      return position as Static<S>;
    },
  };
  codecs.set(tag, codec as unknown as CursorCodec<TSchema>);
  return codec;
}

/** Fetch `limit + 1` rows, then call this: it trims the extra row and builds the pagination block. */
export function paginate<Row>(rows: readonly Row[], limit: number, positionOf: (row: Row) => string) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows.slice();
  const last = page.at(-1);
  return {
    page,
    pagination: { next_cursor: hasMore && last !== undefined ? positionOf(last) : null, has_more: hasMore },
  };
}

/** The SQL types a sort key column may have; each position value is cast to its column's type. */
const CASTS = {
  timestamptz: sql.fragment`::timestamptz`,
  uuid: sql.fragment`::uuid`,
  int8: sql.fragment`::int8`,
  float8: sql.fragment`::float8`,
  text: sql.fragment`::text`,
} as const;
export type KeyColumn = readonly [column: FragmentSqlToken, type: keyof typeof CASTS];

/**
 * One list's keyset: `where` holds the rows after `position` (TRUE on the first page) and `orderBy`
 * the matching order, both over the same columns, e.g.
 * `afterPosition([[sql.fragment\`s.created_at\`, 'timestamptz'], [sql.fragment\`s.id\`, 'uuid']], after, 'desc')`.
 * A row comparison, so one index on (columns…) serves both.
 */
export function afterPosition(columns: readonly KeyColumn[], position: readonly (string | number)[] | undefined, direction: 'asc' | 'desc') {
  const order = direction === 'desc' ? sql.fragment`DESC` : sql.fragment`ASC`;
  const orderBy = sql.join(
    columns.map(([column]) => sql.fragment`${column} ${order}`),
    sql.fragment`, `,
  );
  if (!position) return { where: sql.fragment`TRUE`, orderBy };
  if (position.length !== columns.length) throw new Error(`A position of ${position.length} values for ${columns.length} sort columns.`);
  const comparison = direction === 'desc' ? sql.fragment`<` : sql.fragment`>`;
  const values = columns.map(([, type], index) => sql.fragment`${position[index]!}${CASTS[type]}`);
  return {
    where: sql.fragment`(${sql.join(
      columns.map(([column]) => column),
      sql.fragment`, `,
    )}) ${comparison} (${sql.join(values, sql.fragment`, `)})`,
    orderBy,
  };
}

/**
 * One page of a keyset list, for its query: `where` as afterPosition's, and `orderAndLimit` ordering
 * the rows and taking limit + 1 of them (the extra row tells paginate that there is a next page).
 */
export function keysetPage(columns: readonly KeyColumn[], position: readonly (string | number)[] | undefined, direction: 'asc' | 'desc', limit: number) {
  const { where, orderBy } = afterPosition(columns, position, direction);
  return { where, orderAndLimit: sql.fragment`ORDER BY ${orderBy} LIMIT ${limit + 1}` };
}

/** A page of the rows of `table` that one user owns (by its user_id), newest first: API keys, webhook endpoints. */
export function listOwnedBy<Parser extends Parameters<typeof sql.type>[0]>(
  db: CommonQueryMethods,
  parser: Parser,
  from: { table: string; columns: FragmentSqlToken },
  userId: string,
  after: readonly [string, string] | undefined,
  limit: number,
) {
  const page = keysetPage(recencyKey(), after, 'desc', limit);
  return db.any(sql.type(parser)`
    SELECT ${from.columns} FROM ${sql.identifier([from.table])}
    WHERE user_id = ${userId} AND ${page.where}
    ${page.orderAndLimit}
  `);
}

/** The sort key of most lists: (created_at, id), of the table aliased `alias` if given. */
export function recencyKey(alias?: string): KeyColumn[] {
  const column = (name: string) => sql.identifier(alias ? [alias, name] : [name]);
  return [
    [sql.fragment`${column('created_at')}`, 'timestamptz'],
    [sql.fragment`${column('id')}`, 'uuid'],
  ];
}
