// Cursor lists: every list operation answers `{ data: [...], pagination: { next_cursor, has_more } }`
// and takes `cursor` back. `paginate` walks the pages for you and yields the items, typed from the
// operation's own answer in openapi.json.
import type { TypedCalls } from './client-types.ts';
import type { paths } from './generated/openapi.ts';
import { unwrap } from './problems.ts';

type Pagination = { next_cursor: string | null; has_more: boolean };
type ListAnswer = { data: unknown[]; pagination: Pagination };
type GetOf<P extends keyof paths> = paths[P] extends { get: infer Operation } ? Operation : never;
type OkJson<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

/** The paths whose GET answers a cursor list. */
export type ListPath = { [P in keyof paths]: OkJson<GetOf<P>> extends ListAnswer ? P : never }[keyof paths];
/** One item of the list at path P. */
export type ListItem<P extends ListPath> = OkJson<GetOf<P>> extends { data: Array<infer Item> } ? Item : never;
type Parameters<P extends ListPath> = GetOf<P> extends { parameters: infer Params } ? Params : never;
type PathParameters<P extends ListPath> = Parameters<P> extends { path: infer Path } ? Path : never;
type QueryParameters<P extends ListPath> = Parameters<P> extends { query?: infer Query } ? Omit<NonNullable<Query>, 'cursor'> : never;

export type PaginateOptions<P extends ListPath> = {
  path?: PathParameters<P>;
  query?: QueryParameters<P>;
  headers?: Record<string, string>;
  /** Stop after this many items. */
  max?: number;
};

/** Every item of a cursor list, page after page, as one async iterable. Problems throw RallyProblem. */
export async function* paginate<P extends ListPath>(client: TypedCalls, path: P, options: PaginateOptions<P> = {}): AsyncGenerator<ListItem<P>> {
  let cursor: string | undefined;
  let yielded = 0;
  const get = client.GET as unknown as (path: string, init: object) => Promise<{ data?: ListAnswer; error?: unknown; response: Response }>;
  for (;;) {
    const query = { ...(options.query as object), ...(cursor ? { cursor } : {}) };
    const page = unwrap(await get(path, { params: { path: options.path, query }, headers: options.headers }));
    for (const item of page.data) {
      if (options.max !== undefined && yielded >= options.max) return;
      yielded++;
      yield item as ListItem<P>;
    }
    if (!page.pagination.has_more || !page.pagination.next_cursor) return;
    cursor = page.pagination.next_cursor;
  }
}

/** All items of a cursor list in an array (mind `max` on long lists). */
export async function collect<P extends ListPath>(client: TypedCalls, path: P, options: PaginateOptions<P> = {}): Promise<ListItem<P>[]> {
  const items: ListItem<P>[] = [];
  for await (const item of paginate(client, path, options)) items.push(item);
  return items;
}
