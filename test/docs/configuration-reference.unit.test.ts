// The configuration reference (docs/operations/configuration.md) and .env.example are generated from
// the configuration schema (platform/config/*.ts), so the documentation cannot drift from what
// start-up accepts, and .env.example holds what compose.yaml refuses to start without.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { configTable, documentedConfigTable, envExample } from '../../platform/config/docs.ts';

const read = (relative: string) => readFile(new URL(`../../${relative}`, import.meta.url), 'utf8');
const REGENERATE = 'node scripts/run.mjs scripts/config-table.ts --write';

// Every variable the hand-written table documented before the schema, plus the pool size it missed.
const DOCUMENTED = `NODE_ENV PORT PUBLIC_URL DATABASE_URL RALLY_DB_POOL_SIZE RALLY_DATA_DIR TEMPORAL_ADDRESS TEMPORAL_NAMESPACE
  RALLY_TASK_QUEUE TEMPORAL_TLS_CERT TEMPORAL_TLS_KEY TEMPORAL_API_KEY TEMPORAL_TLS_CA TEMPORAL_TLS_SERVER_NAME TEMPORAL_TLS
  RALLY_API_SHUTDOWN_DELAY RALLY_TEMPORAL_DEV_PORT RALLY_TEMPORAL_UI_PORT RALLY_TEMPORAL_DB_FILE RALLY_WORKFLOW_BUNDLE
  RALLY_WORKER_SHUTDOWN_GRACE RALLY_KEY_GRACE_PERIOD RALLY_UPLOAD_URL_TTL RALLY_RESPONSE_TOKEN_TTL RALLY_INVITATION_TTL
  RALLY_NOTIFICATION_EMAIL_WINDOW RALLY_WEBHOOK_TIMEOUT RALLY_WEBHOOK_RETRY_INITIAL RALLY_WEBHOOK_ALLOW_PRIVATE
  RALLY_WEBHOOK_ENDPOINT_CONCURRENCY RALLY_WEBHOOK_HOST_CONCURRENCY RALLY_WEBHOOK_DEACTIVATE_AFTER
  RALLY_WEBHOOK_SECRET_GRACE_PERIOD RALLY_ENCRYPTION_KEY RALLY_MEDIA_DIR RALLY_MEDIA_MAX_BYTES RALLY_MEDIA_SIGNING_KEY
  S3_ENDPOINT S3_BUCKET S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY S3_REGION S3_PUBLIC_URL SMTP_URL RALLY_MAIL_DIR RALLY_MAIL_FROM
  RALLY_RATE_LIMIT_ENABLED RALLY_RATE_LIMIT_RPS RALLY_RATE_LIMIT_BURST RALLY_SIGN_LIMIT_PER_HOUR RALLY_SIGN_BATCH_WINDOW
  RALLY_SIGN_BATCH_MAX RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR RALLY_SIGN_LIMIT_OPEN_DOMAINS
  RALLY_FRAUD_WATCH_WINDOW RALLY_FRAUD_WATCH_BASELINE RALLY_FRAUD_WATCH_MULTIPLE RALLY_FRAUD_WATCH_MIN_SIGNATURES
  RALLY_REPORT_AUTOHIDE_THRESHOLD RALLY_REPORT_MIN_ACCOUNT_AGE RALLY_REPORT_BRIGADE_THRESHOLD RALLY_REPORT_LIMIT_PER_HOUR
  RECAPTCHA_SECRET RECAPTCHA_VERIFY_URL RALLY_TRUST_PROXY RALLY_WS_MAX_PER_ADDRESS RALLY_LOGIN_FAILURE_LIMIT
  RALLY_SEARCH_TIMEOUT RALLY_PAGE_VIEW_FLUSH_INTERVAL OIDC_ISSUER OIDC_CLIENT_ID OIDC_CLIENT_SECRET RALLY_IDP_PORT
  RALLY_ACCESS_TOKEN_TTL RALLY_REFRESH_TOKEN_TTL LOG_LEVEL RALLY_METRICS_TOKEN RALLY_WORKER_METRICS_PORT
  OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_PROTOCOL`.split(/\s+/);

// What compose.yaml refuses to start without (read by hand from its `${NAME:?…}` lines).
const COMPOSE_SECRETS = ['POSTGRES_PASSWORD', 'RALLY_ENCRYPTION_KEY', 'RALLY_MEDIA_SIGNING_KEY', 'OIDC_CLIENT_SECRET', 'RALLY_METRICS_TOKEN'];

describe('configuration reference (docs/operations/configuration.md, .env.example)', () => {
  it('holds the table generated from the configuration schema', async () => {
    const documented = documentedConfigTable(await read('docs/operations/configuration.md'));
    expect(documented, `docs/operations/configuration.md has lost its table markers; restore them and run \`${REGENERATE}\``).to.be.a('string');
    expect(documented === configTable(), `the configuration reference differs from the schema in platform/config/: run \`${REGENERATE}\``).to.equal(true);
  });

  it('has one row with a default and a meaning for every documented variable', async () => {
    const table = documentedConfigTable(await read('docs/operations/configuration.md')) ?? '';
    const rows = new Map(
      table
        .split('\n')
        .map((row) => row.split(' | '))
        .map(([name = '', ...cells]) => [name.replace(/^\| `|`$/g, ''), cells]),
    );
    for (const name of DOCUMENTED) {
      const [defaultCell = '', meaning = ''] = rows.get(name) ?? [];
      expect(defaultCell, `${name}'s default`).to.not.equal('');
      expect(meaning.replace(/\s*\|$/, ''), `${name}'s meaning`).to.not.equal('');
    }
  });

  it('keeps .env.example generated from the schema and compose.yaml', async () => {
    const example = await read('.env.example');
    expect(example === envExample(await read('compose.yaml')), `.env.example differs from the schema or compose.yaml: run \`${REGENERATE}\``).to.equal(true);
  });

  it("gives .env.example an empty line for each of compose.yaml's required secrets and every variable commented out", async () => {
    const lines = (await read('.env.example')).split('\n');
    for (const name of COMPOSE_SECRETS) expect(lines, name).to.include(`${name}=`);
    for (const name of DOCUMENTED.filter((name) => !COMPOSE_SECRETS.includes(name))) {
      expect(
        lines.some((line) => line.startsWith(`# ${name}=`)),
        `${name} commented out`,
      ).to.equal(true);
    }
    expect(lines, 'a default shown as it is written').to.include('# PORT=3000');
  });
});
