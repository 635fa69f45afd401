// The one place that reads the environment. Every process (API, worker, CLI, scripts) calls loadConfig() once at start-up and passes the result down; nothing
// else touches process.env. The variables are one TypeBox schema (platform/config/schema.ts, by area); a malformed value stops start-up with a ConfigError
// naming each bad variable. Values that may hold secrets are never echoed.

import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CHECKS, type Env, type MetricsServer } from './config/checks.ts';
import { ConfigError } from './config/formats.ts';
import { buildConfig, ConfigSchema } from './config/schema.ts';
import type { Config } from './config/types.ts';
import { expected } from './config/variables.ts';

export { ConfigError, parseDuration } from './config/formats.ts';
export type { MetricsServer } from './config/checks.ts';
export type { Config, LogLevel, S3Settings, TemporalTls, TrustProxy } from './config/types.ts';

const VARIABLES = ConfigSchema.properties as Record<string, TSchema>;

// Strictly what the schema's type says: `1.5`, `1e3` or `yes` stay strings and fail validation
// (TypeBox's own Value.Convert would read them as 1, 1000 and true). Empty means unset, as for every variable.
function readEnvironment(env: Env): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (schema.type === 'integer' && /^\d+$/.test(raw)) values[name] = Number(raw);
    else if (schema.type === 'boolean' && /^(true|false|1|0)$/.test(raw)) values[name] = raw === 'true' || raw === '1';
    else values[name] = raw;
  }
  return values;
}

/** One sentence per bad variable, saying what it accepts. */
function schemaProblems(values: unknown, env: Env): string[] {
  const bad = new Set<string>();
  for (const error of Value.Errors(ConfigSchema, values)) bad.add(error.path.split('/')[1] ?? error.path);
  return [...bad].map((name) => {
    const { words, echo } = expected(VARIABLES[name]!);
    return `${name} must be ${words}${echo ? ` (got "${env[name]}")` : ''}`;
  });
}

/** `servesMetrics`: the process about to serve GET /metrics, whose production start needs RALLY_METRICS_TOKEN. */
export function loadConfig(env: Env = process.env, servesMetrics?: MetricsServer): Config {
  const raw = Value.Default(ConfigSchema, readEnvironment(env));
  const problems = schemaProblems(raw, env);
  if (problems.length > 0) throw new ConfigError(problems);
  const values = Value.Decode(ConfigSchema, raw);
  const refused = CHECKS.map((check) => check(values, env, servesMetrics)).filter((problem) => problem !== undefined);
  if (refused.length > 0) throw new ConfigError(refused);
  return buildConfig(values);
}

/** Loads the configuration or exits with one line per bad variable, naming it. */
export function loadConfigOrExit(env: Env = process.env, servesMetrics?: MetricsServer): Config {
  try {
    return loadConfig(env, servesMetrics);
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`rally: configuration error: ${problem}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** The issuer of the embedded identity provider (identity-provider/), used when OIDC_ISSUER is unset. */
export function embeddedIssuer(config: Config): string {
  return `http://127.0.0.1:${config.identity.embeddedPort}`;
}
