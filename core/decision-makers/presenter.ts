// A decision maker's response as the API shows it and as response.* events carry it.
import type { ResponseRow } from './queries.ts';

export function toResponse(row: ResponseRow) {
  return {
    id: row.id,
    petition_id: row.petition_id,
    decision_maker: { id: row.decision_maker_id, name: row.decision_maker_name, title: row.decision_maker_title },
    status: row.status,
    body: row.body,
    created_at: row.created_at,
    published_at: row.published_at,
  };
}
