-- Who created each organization key: the person who saw its secret, so the owner and admins can be
-- told which keys to rotate when that person leaves or stops being an admin, and so the key is
-- refused while that person is suspended. NULL for personal keys (user_id is their owner) and for
-- organization keys made before this column existed (their creator is unknown).
ALTER TABLE api_keys ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL;

-- The keys a departing admin created, found without reading every key.
CREATE INDEX api_keys_created_by_idx ON api_keys (created_by) WHERE created_by IS NOT NULL;
