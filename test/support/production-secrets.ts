// Every secret that production insists on having set, so a test can check one rule at a time.
export const PRODUCTION_SECRETS = {
  NODE_ENV: 'production',
  RALLY_MEDIA_SIGNING_KEY: 'media-key-of-our-own',
  RALLY_ENCRYPTION_KEY: 'ab'.repeat(32),
  RALLY_METRICS_TOKEN: 'metrics-token-of-our-own',
};
