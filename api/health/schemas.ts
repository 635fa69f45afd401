// Shapes of the probes' answers, named so the reference writes the dependency checks once.
import { Type } from '@sinclair/typebox';

const Reachability = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]);
export const HealthChecks = Type.Object({ database: Reachability, temporal: Reachability });

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  timestamp: Type.String({ format: 'date-time' }),
  checks: HealthChecks,
});

export const Liveness = Type.Object({ status: Type.Literal('ok'), timestamp: Type.String({ format: 'date-time' }) });

export const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting_down')]),
  timestamp: Type.String({ format: 'date-time' }),
  checks: HealthChecks,
});
