// The scheduled fraud watch and the handling of reports.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { duration, integer } from './variables.ts';

export const moderationVariables = {
  RALLY_FRAUD_WATCH_WINDOW: duration('RALLY_FRAUD_WATCH_WINDOW', {
    default: '5m',
    description: 'the fraud watch counts signatures per petition, network block and email domain in windows this long',
  }),
  RALLY_FRAUD_WATCH_BASELINE: duration('RALLY_FRAUD_WATCH_BASELINE', {
    default: '24h',
    description: "the windows before, whose average per window is a subject's baseline (at least two windows)",
  }),
  RALLY_FRAUD_WATCH_MULTIPLE: integer(1_000, { default: 5, description: 'a window at this multiple of its baseline raises `fraud.suspected` …' }),
  RALLY_FRAUD_WATCH_MIN_SIGNATURES: integer(1_000_000_000, { default: 50, description: '… when it also holds at least this many signatures' }),
  RALLY_FRAUD_FLAGGED_SHARE_ALERT: integer(100, {
    default: 20,
    description:
      'percent: a petition whose flagged signatures (past a signing threshold) pass this share of its count raises `fraud.suspected`, ' +
      'once per petition and hour, when they also number at least RALLY_FRAUD_WATCH_MIN_SIGNATURES',
  }),
  RALLY_REPORT_AUTOHIDE_THRESHOLD: integer(1_000, {
    default: 5,
    description: 'distinct established people with an open report after which a target is hidden pending review',
  }),
  RALLY_REPORT_MIN_ACCOUNT_AGE: duration('RALLY_REPORT_MIN_ACCOUNT_AGE', {
    default: '24h',
    description: 'reports from accounts younger than this (or with an unverified email) reach the queue but never auto-hide',
  }),
  RALLY_REPORT_BRIGADE_THRESHOLD: integer(1_000, {
    default: 5,
    description:
      'reports against one target from one network block (/24, /64) within an hour that alert the ' +
      'administrators (`report.brigading_suspected`) and stop counting toward auto-hide',
  }),
  RALLY_REPORT_LIMIT_PER_HOUR: integer(1_000_000_000, { default: 20, description: 'reports one user may file per hour (`POST /v1/reports`)' }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof moderationVariables>>>;

export function moderationSettings(values: Values) {
  return {
    fraudWatch: Object.freeze({
      windowMs: values.RALLY_FRAUD_WATCH_WINDOW,
      baselineMs: values.RALLY_FRAUD_WATCH_BASELINE,
      multiple: values.RALLY_FRAUD_WATCH_MULTIPLE,
      minSignatures: values.RALLY_FRAUD_WATCH_MIN_SIGNATURES,
      flaggedShare: values.RALLY_FRAUD_FLAGGED_SHARE_ALERT / 100,
    }),
    moderation: Object.freeze({
      autohideThreshold: values.RALLY_REPORT_AUTOHIDE_THRESHOLD,
      reportsPerHour: values.RALLY_REPORT_LIMIT_PER_HOUR,
      minAccountAgeMs: values.RALLY_REPORT_MIN_ACCOUNT_AGE,
      brigadeThreshold: values.RALLY_REPORT_BRIGADE_THRESHOLD,
    }),
  } satisfies Partial<Config>;
}
