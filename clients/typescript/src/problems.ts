// Typed problems: every error answer of the Rally API is an RFC 9457 problem (the `Problem` schema of
// openapi.json). RallyProblem carries it, typed, so callers branch on `status`, `code` and `errors`.
import type { components } from './generated/openapi.ts';
import { PROBLEM_TYPES } from './generated/problem-types.ts';

export type Problem = components['schemas']['Problem'];
export type FieldError = components['schemas']['FieldError'];
/** The problem types the API can answer with (the last segment of `type`). */
export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export class RallyProblem extends Error {
  override name = 'RallyProblem';
  readonly status: number;
  readonly code: string;
  readonly slug: ProblemSlug | undefined;
  readonly errors: FieldError[];
  readonly requestId: string | undefined;
  readonly problem: Problem;
  readonly response: Response;

  constructor(problem: Problem, response: Response) {
    super(`${problem.status} ${problem.title}: ${problem.message}`);
    this.problem = problem;
    this.response = response;
    this.status = problem.status;
    this.code = problem.code ?? '';
    const slug = problem.type.split('/').pop();
    this.slug = slug && slug in PROBLEM_TYPES ? (slug as ProblemSlug) : undefined;
    this.errors = problem.errors ?? [];
    this.requestId = problem.request_id;
  }
}

export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.type === 'string' && typeof candidate.title === 'string' && typeof candidate.status === 'number';
}

/**
 * The data of an openapi-fetch result, or a thrown RallyProblem when the API answered with a problem
 * (or a plain Error for anything else that is not a success).
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  if (isProblem(result.error)) throw new RallyProblem(result.error, result.response);
  throw new Error(`Rally answered ${result.response.status} ${result.response.statusText}`);
}
