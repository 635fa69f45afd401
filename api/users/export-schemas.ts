// Shapes of a person's data exports as the API shows them (never the link's token or storage key).
import { Type } from '@sinclair/typebox';
import type { AccountExportRow } from '../../core/account-exports/exports.ts';
import { Meta } from '../http/envelopes.ts';
import { PaginationSchema } from '../http/pagination.ts';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const AccountExport = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('ready'), Type.Literal('failed')], {
    description: '`ready`: the archive is stored and its link was emailed to you',
  }),
  size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp,
  completed_at: NullableTimestamp,
  link_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'until when the emailed link works (once)' }),
  downloaded_at: Type.Union([Timestamp, Type.Null()], { description: 'when the link was used; it works no more' }),
});

export const AccountExportEnvelope = Type.Object({ data: AccountExport, meta: Meta });
export const AccountExportList = Type.Object({ data: Type.Array(AccountExport), pagination: PaginationSchema, meta: Meta });

export const ExportDownloadParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const ExportDownloadQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) });

export const toAccountExport = (row: AccountExportRow) => ({ ...row });
