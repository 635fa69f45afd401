// The `meta` block every answer carries (request id and time), as a schema for the reference.
import { Type } from '@sinclair/typebox';

export const Meta = Type.Object({ request_id: Type.String(), timestamp: Type.String({ format: 'date-time' }) });
