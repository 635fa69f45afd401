-- Organizations: teams with roles (owner, admin, member) that run petitions together, on a tier
-- that caps their members and API keys.

-- The tiers and their limits, in one table: a NULL limit means unlimited. `rank` orders them, so an
-- upgrade (a payment.completed event) can be told from a downgrade.
CREATE TABLE organization_tiers (
  tier text PRIMARY KEY,
  rank smallint NOT NULL,
  member_limit integer,
  api_key_limit integer,
  CONSTRAINT organization_tiers_rank_unique UNIQUE (rank)
);
INSERT INTO organization_tiers (tier, rank, member_limit, api_key_limit) VALUES
  ('free', 0, 5, 2),
  ('pro', 1, 50, 20),
  ('enterprise', 2, NULL, NULL);

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL,
  name text NOT NULL,
  description text,
  logo_url text,
  website text,
  verified boolean NOT NULL DEFAULT false,
  tier text NOT NULL DEFAULT 'free' REFERENCES organization_tiers (tier),
  tier_changed_at timestamptz,
  -- The user that the organization's API keys belong to, made with the first key: keys act for the
  -- organization (as one of its admins), never for the person who created them.
  service_user_id uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT organizations_name_length CHECK (char_length(name) BETWEEN 2 AND 100),
  CONSTRAINT organizations_description_length CHECK (description IS NULL OR char_length(description) <= 1000)
);
-- Names are unique regardless of case: "Save The Bees" and "save the bees" are one organization.
-- Made after it, so a clash of both reports the name, which the caller chose.
CREATE UNIQUE INDEX organizations_name_unique ON organizations (lower(name));
ALTER TABLE organizations ADD CONSTRAINT organizations_slug_unique UNIQUE (slug);
-- The public list, newest first, all or verified only.
CREATE INDEX organizations_recent_idx ON organizations (created_at DESC, id DESC);
CREATE UNIQUE INDEX organizations_service_user_idx ON organizations (service_user_id) WHERE service_user_id IS NOT NULL;
CREATE INDEX organizations_verified_recent_idx ON organizations (created_at DESC, id DESC) WHERE verified;

CREATE TABLE organization_members (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT organization_members_one_per_user UNIQUE (org_id, user_id),
  CONSTRAINT organization_members_role_valid CHECK (role IN ('owner', 'admin', 'member'))
);
-- Exactly one owner at a time: ownership moves only through the transfer operation.
CREATE UNIQUE INDEX organization_members_one_owner ON organization_members (org_id) WHERE role = 'owner';
CREATE INDEX organization_members_org_recent_idx ON organization_members (org_id, created_at, id);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

-- Petitions keep their organization only while it exists: deleting it leaves them to their creators.
-- Until now org_id was stored unchecked, so ids that name no organization are cleared first.
UPDATE petitions SET org_id = NULL WHERE org_id IS NOT NULL;
ALTER TABLE petitions
  ADD CONSTRAINT petitions_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE SET NULL;
CREATE INDEX petitions_org_recent_idx ON petitions (org_id, created_at DESC, id DESC) WHERE deleted_at IS NULL AND org_id IS NOT NULL;

-- Invitations by email. The token goes out in the email; only its SHA-256 is kept (it carries 32
-- random bytes). The organizationInvitation workflow (org-invite-<id>) reminds once and expires it.
CREATE TABLE organization_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL,
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  -- NULL until the workflow issues the token; a retried send before sent_at replaces it.
  token_hash bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  sent_at timestamptz,
  reminded_at timestamptz,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  expired_at timestamptz,
  CONSTRAINT organization_invitations_token_unique UNIQUE (token_hash),
  CONSTRAINT organization_invitations_role_valid CHECK (role IN ('admin', 'member')),
  CONSTRAINT organization_invitations_email_length CHECK (char_length(email) BETWEEN 3 AND 320)
);
-- One open invitation per address and organization.
CREATE UNIQUE INDEX organization_invitations_one_open ON organization_invitations (org_id, lower(email))
  WHERE accepted_at IS NULL AND expired_at IS NULL;
CREATE INDEX organization_invitations_org_recent_idx ON organization_invitations (org_id, created_at DESC, id DESC);

-- The email channel of notifications: a notification made for someone whose preference for its
-- type keeps `email` on is pending until the worker mails it, alone or within a digest.
ALTER TABLE notifications
  ADD COLUMN email_pending boolean NOT NULL DEFAULT false,
  -- When the dispatcher handed the recipient to their notification-emails workflow.
  ADD COLUMN email_queued_at timestamptz,
  ADD COLUMN emailed_at timestamptz;
CREATE INDEX notifications_email_pending_idx ON notifications (user_id, created_at) WHERE email_pending;

-- Milestone crossings are handed to the petition's lifecycle workflow as signals by the outbox
-- dispatcher; the crossings reached before this migration count as handed over.
ALTER TABLE petition_milestones ADD COLUMN signalled_at timestamptz;
UPDATE petition_milestones SET signalled_at = reached_at;
CREATE INDEX petition_milestones_unsignalled_idx ON petition_milestones (reached_at) WHERE signalled_at IS NULL;
