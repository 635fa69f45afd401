// Shapes of the admin fraud tools of issue 44: the flagged crowds of a petition, clearing their
// flags, and the allow- and block-lists of signers.
import { Type } from '@sinclair/typebox';
import { FLAGGED_SUBJECT_TYPES } from '../../core/signatures/flagged-crowds.ts';
import { SIGNING_LIST_SUBJECT_TYPES, SIGNING_LISTS } from '../../core/signatures/signing-lists.ts';
import { Meta } from '../http/envelopes.ts';
import { LimitQuery, PaginationSchema } from '../http/pagination.ts';

const Uuid = Type.String({ format: 'uuid' });
const DateTime = Type.String({ format: 'date-time' });
const words = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

const FlaggedSubjectType = words(FLAGGED_SUBJECT_TYPES);
const Count = Type.Integer({ minimum: 0 });

export const FlaggedCrowdQuery = Type.Object({ limit: LimitQuery({ max: 200, default: 50 }) }, { additionalProperties: false });
export const FlaggedCrowd = Type.Object({
  subject_type: FlaggedSubjectType,
  subject: Type.String({ description: 'The email domain, or the network block as its keyed hash (hex): an address is never stored.' }),
  flagged: Type.Integer({ minimum: 1, description: "The petition's signatures flagged for this subject." }),
  first_at: DateTime,
  last_at: DateTime,
  new_accounts: Type.Integer({ minimum: 0, description: 'Of their accounts, made less than a day before signing.' }),
  unverified_accounts: Type.Integer({ minimum: 0, description: 'Of their accounts, with an email address not verified.' }),
  inactive_accounts: Type.Integer({ minimum: 0, description: 'Of their accounts, with no other signature, petition or comment.' }),
});
export const FlaggedCrowdList = Type.Object({ data: Type.Array(FlaggedCrowd), pagination: PaginationSchema, meta: Meta });

export const ClearFlagsBody = Type.Object(
  {
    subject_type: FlaggedSubjectType,
    subject: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$', description: 'As the flagged-crowds view names it.' }),
  },
  { additionalProperties: false },
);
export const ClearFlagsEnvelope = Type.Object({ data: Type.Object({ cleared: Count }), meta: Meta });

export const SigningListEntryCreate = Type.Object(
  {
    list: words(SIGNING_LISTS),
    subject_type: words(SIGNING_LIST_SUBJECT_TYPES),
    subject: Type.String({
      minLength: 1,
      maxLength: 260,
      description: 'An IPv4 or IPv6 address, a network in CIDR notation, or an email domain (`*.example.org`: its subdomains).',
    }),
    exempt_address_limit: Type.Boolean({
      default: false,
      description: 'Allowed addresses and networks only: not held to RALLY_SIGN_LIMIT_PER_HOUR either (a university NAT, say).',
    }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const SigningListEntry = Type.Object({
  id: Uuid,
  list: words(SIGNING_LISTS),
  subject_type: words(SIGNING_LIST_SUBJECT_TYPES),
  subject: Type.String(),
  exempt_address_limit: Type.Boolean(),
  note: Type.Union([Type.String(), Type.Null()]),
  created_by: Type.Union([Uuid, Type.Null()]),
  created_at: DateTime,
});
export const SigningListEntryEnvelope = Type.Object({ data: SigningListEntry, meta: Meta });
export const SigningListEntryList = Type.Object({ data: Type.Array(SigningListEntry), meta: Meta });
