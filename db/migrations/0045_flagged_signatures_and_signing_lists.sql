-- Issue 44: past the per-block or per-domain signing threshold a signature is accepted and flagged
-- instead of refused. `flags` names the thresholds it passed ('network_block', 'email_domain'); NULL
-- when it passed none. Never shown publicly; kept on an invalidated signature for the audit.
ALTER TABLE signatures ADD COLUMN flags text[];
ALTER TABLE invalidated_signatures ADD COLUMN flags text[];
-- Flagged signatures are few: the moderators' crowd view and the flagged-share alert read them here.
CREATE INDEX signatures_flagged_idx ON signatures (petition_id, created_at) WHERE flags IS NOT NULL;

-- The administrators' allow- and block-lists of signers: an address, a network (CIDR) or an email
-- domain (`*.example.org` for its subdomains). Allowed ones are never flagged (and, when
-- exempt_address_limit, not held to the per-address limit either); blocked ones are refused.
CREATE TABLE signing_list_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  list text NOT NULL,
  subject_type text NOT NULL,
  subject text NOT NULL,
  exempt_address_limit boolean NOT NULL DEFAULT false,
  note text,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT signing_list_entries_list_valid CHECK (list IN ('allow', 'block')),
  CONSTRAINT signing_list_entries_subject_type_valid CHECK (subject_type IN ('address', 'network', 'email_domain')),
  CONSTRAINT signing_list_entries_exemption_allowed_only CHECK (list = 'allow' OR NOT exempt_address_limit),
  CONSTRAINT signing_list_entries_once UNIQUE (list, subject_type, subject)
);

-- Every API process caches the lists (core/signatures/signing-lists.ts) and reloads them when told.
CREATE FUNCTION rally_announce_signing_lists_change() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    PERFORM pg_notify('rally_signing_lists_changed', '');
    RETURN NULL;
  END
  $$;

CREATE TRIGGER signing_list_entries_announce_change
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON signing_list_entries FOR EACH STATEMENT
  EXECUTE FUNCTION rally_announce_signing_lists_change();
