// How an app presents itself to the people asked to approve it (issue 42): a self-service app may not
// take the platform's name (in any spelling a reader would take for it), and the consent screen says
// who registered the app, which its name alone cannot prove.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Invalid } from '../errors/domain-error.ts';

export const PLATFORM_NAME = 'Rally';

// Letters that read as those of the platform's name: digit one, capital i and their look-alikes
// read as "l"; Cyrillic and Greek "a" and "y" as Latin ones.
const LOOK_ALIKES: Record<string, string> = { '1': 'l', i: 'l', ı: 'l', і: 'l', ӏ: 'l', ǀ: 'l', а: 'a', α: 'a', у: 'y', ү: 'y', γ: 'y' };

/** A name as a reader sees it: compatibility forms folded, accents, case, spacing, punctuation and look-alikes gone. */
function skeleton(name: string): string {
  const letters = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
  return [...letters].map((letter) => LOOK_ALIKES[letter] ?? letter).join('');
}

const RESERVED = skeleton(PLATFORM_NAME);

/** Whether a name would pass for the platform's own ("Rally", "R A L L Y", "rally.", "RaIIy"). */
export const isReservedAppName = (name: string) => skeleton(name) === RESERVED;

/** For names developers choose (/v1/oauth/apps); the operator's CLI may name an app "Rally". */
export function checkDeveloperAppName(name: string): void {
  if (isReservedAppName(name)) {
    throw new Invalid(`"${PLATFORM_NAME}" is reserved for the platform's own apps; choose a name of your own.`, {
      fields: [{ field: 'name', code: 'reserved_name', message: `the name "${PLATFORM_NAME}" is reserved` }],
    });
  }
}

/** Who stands behind an app on the consent screen: the site's operator, or the developer who registered it. */
export type AppOwner = { kind: 'operator' } | { kind: 'developer'; name: string; emailDomain: string; emailVerified: boolean };

const OwnerRow = z.object({
  self_service: z.boolean(),
  display_name: z.string().nullable(),
  email: z.string().nullable(),
  email_verified: z.boolean().nullable(),
});

export async function findAppOwner(db: CommonQueryMethods, clientId: string): Promise<AppOwner | undefined> {
  const row = await db.maybeOne(sql.type(OwnerRow)`
    SELECT c.registered_by IS NOT NULL AS self_service, u.display_name, u.email, u.email_verified
    FROM oauth_clients c LEFT JOIN users u ON u.id = c.registered_by
    WHERE c.client_id = ${clientId}
  `);
  if (!row) return undefined;
  if (!row.self_service) return { kind: 'operator' };
  return {
    kind: 'developer',
    name: row.display_name ?? '',
    emailDomain: row.email?.split('@').pop() ?? '',
    emailVerified: row.email_verified === true,
  };
}
