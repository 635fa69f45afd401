// The answer a retry of a request will get, stored by the very statement that makes the write, so a process killed between the write's commit and the
// Idempotency-Key layer's store (api/http/idempotency.ts) does not leave the key claimed but answerless: the retry replays the 201. The API builds the function
// (it knows the status and the envelope); the domain only hands it the created resource as a jsonb expression.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';

/** Whose key: the caller and the Idempotency-Key value, the primary key of idempotency_keys. */
export type IdempotencyTicket = { callerKey: string; key: string };

/**
 * Given a jsonb expression for what the write created (NULL when it wrote nothing), a data-modifying
 * statement storing the answer, usable as a CTE of the write's own statement or run in its transaction.
 */
export type RememberAnswer = (data: FragmentSqlToken) => FragmentSqlToken;

/**
 * The UPDATE behind a RememberAnswer: stores `envelope(data)` as the answer, unless `data` is NULL
 * (the write wrote nothing, and its own error answer is not for replaying).
 */
export function rememberAnswerStatement(
  ticket: IdempotencyTicket,
  answer: { status: number; headers: Record<string, string>; data: FragmentSqlToken; envelope: (data: FragmentSqlToken) => FragmentSqlToken },
): FragmentSqlToken {
  return sql.fragment`
    UPDATE idempotency_keys
    SET response_status = ${answer.status}, response_headers = ${sql.jsonb(answer.headers)}, response_body =
    (${answer.envelope(sql.fragment`answer.data`)})::text
    FROM (SELECT ${answer.data} AS data) AS answer
    WHERE caller_key = ${ticket.callerKey} AND idempotency_key = ${ticket.key} AND answer.data IS NOT NULL`;
}
