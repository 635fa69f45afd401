-- The few users who opted in to hear about the milestones of petitions they signed. A milestone
-- crossing asks whether any signer of the petition is among them before it starts the workflow that
-- tells them (most crossings: none is), so the question starts from this small set and probes each
-- one's signature of the petition (signatures_one_per_user), never the petition's whole signer list.
CREATE INDEX users_milestone_opt_in_idx ON users (id)
  WHERE (notification_prefs -> 'petition.milestone' ->> 'in_app') = 'true';
