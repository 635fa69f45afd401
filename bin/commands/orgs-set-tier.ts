// `rally orgs set-tier --org SLUG --tier free|pro|enterprise`: moves an organization to a tier.
// Payment happens outside Rally; an upgrade is recorded as a payment.completed event.
import { parseArgs } from 'node:util';
import type { DatabasePool } from 'slonik';
import { DomainError } from '../../core/errors/domain-error.ts';
import { setTier } from '../../core/organizations/tiers.ts';
import { ORGANIZATION_TIERS, type OrganizationTier } from '../../core/vocabulary.ts';
import { CommandError } from './command-error.ts';

export async function setOrganizationTier(db: DatabasePool, args: string[]) {
  const { values } = parseArgs({ args, options: { org: { type: 'string' }, tier: { type: 'string' } }, strict: true });
  if (!values.org || !values.tier) throw new CommandError('orgs set-tier needs --org SLUG and --tier free|pro|enterprise');
  if (!(ORGANIZATION_TIERS as readonly string[]).includes(values.tier)) {
    throw new CommandError(`--tier must be one of ${ORGANIZATION_TIERS.join(', ')}; got ${values.tier}`);
  }
  try {
    return await setTier(db, values.org, values.tier as OrganizationTier);
  } catch (error) {
    if (error instanceof DomainError) throw new CommandError(error.message);
    throw error;
  }
}
