// The project's sql tag: Slonik's, plus a `void` alias for statements that return no rows, so every
// query still names what it expects back.
import { createSqlTag } from 'slonik';
import { z } from 'zod';

export const sql = createSqlTag({
  typeAliases: {
    void: z.object({}).strict(),
  },
});
