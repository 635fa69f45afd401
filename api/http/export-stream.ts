// Streams a large result as CSV or a JSON array, fetching it in keyset batches, so an export of a
// million rows never sits in memory and the first bytes leave at once.
import { Readable } from 'node:stream';

export type ExportFormat = 'csv' | 'json';

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Quote everything that needs it, and defuse spreadsheet formulas (CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function exportStream<Row extends Record<string, unknown>>(
  format: ExportFormat,
  columns: readonly (keyof Row & string)[],
  batches: AsyncIterable<readonly Row[]>,
): Readable {
  async function* lines() {
    if (format === 'csv') yield `${columns.join(',')}\r\n`;
    else yield '[';
    let first = true;
    for await (const batch of batches) {
      for (const row of batch) {
        if (format === 'csv') yield `${columns.map((column) => csvCell(row[column])).join(',')}\r\n`;
        else yield `${first ? '' : ','}\n${JSON.stringify(Object.fromEntries(columns.map((column) => [column, row[column]])))}`;
        first = false;
      }
    }
    if (format === 'json') yield '\n]\n';
  }
  return Readable.from(lines());
}

/** Pages through a keyset query until a batch comes back short. */
export async function* keysetBatches<Row, Key>(
  fetch: (after: Key | undefined) => Promise<readonly Row[]>,
  keyOf: (row: Row) => Key,
  size: number,
): AsyncIterable<readonly Row[]> {
  let after: Key | undefined;
  for (;;) {
    const batch = await fetch(after);
    if (batch.length > 0) yield batch;
    if (batch.length < size) return;
    after = keyOf(batch[batch.length - 1]!);
  }
}
