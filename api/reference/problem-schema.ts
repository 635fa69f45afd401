// The RFC 9457 problem every error answer carries (error-middleware.ts writes it), as the document's
// `Problem` component: on every 4xx and 5xx of every operation, so a generated client knows the error
// shape exactly where it branches on it.
import { PROBLEM_TYPES } from '../http/problem.ts';

const SLUGS = Object.keys(PROBLEM_TYPES);

export const FieldErrorSchema = {
  type: 'object',
  description: 'One field the request got wrong.',
  required: ['field', 'message', 'code'],
  properties: {
    field: { type: 'string', description: 'The field, as a dotted path (`decisionMakers.0.email`).' },
    message: { type: 'string', description: 'What is wrong with it, for people.' },
    code: {
      type: 'string',
      description: 'What is wrong with it, for programs.',
      examples: ['required', 'invalid_type', 'too_small', 'too_big', 'invalid_format', 'invalid_enum', 'unknown_field'],
    },
  },
} as const;

export const ProblemSchema = {
  type: 'object',
  description: 'An RFC 9457 problem: what went wrong, with a stable `code` to branch on.',
  required: ['type', 'title', 'status', 'detail', 'message', 'instance'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      description: `PUBLIC_URL/problems/<slug>; the page explains the slug. Slugs: ${SLUGS.join(', ')}.`,
      examples: ['http://localhost:3000/problems/validation-failed'],
    },
    title: { type: 'string', description: 'The problem type in a few words; the same for every problem of the type.', examples: ['Validation failed'] },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status, repeated.', examples: [422] },
    code: { type: 'string', description: 'Stable machine-readable code: the slug with underscores, or a more precise one.', examples: ['validation_failed'] },
    detail: {
      type: 'string',
      deprecated: true,
      description: 'The same as `message` (kept for clients of RFC 7807).',
      examples: ['title: must NOT have fewer than 5 characters'],
    },
    message: { type: 'string', description: 'What happened in this request, for people.', examples: ['title: must NOT have fewer than 5 characters'] },
    instance: { type: 'string', description: 'The path of the request.', examples: ['/v1/petitions'] },
    request_id: {
      type: 'string',
      description: 'The X-Request-Id of the request; quote it when reporting a problem.',
      examples: ['6f1c1d2e-8a4b-4c7d-9e0f-1a2b3c4d5e6f'],
    },
    errors: { type: 'array', description: 'Only on 422: each field that was wrong.', items: { $ref: '#/components/schemas/FieldError' } },
  },
  examples: [
    {
      type: 'http://localhost:3000/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      code: 'validation_failed',
      detail: 'title: must NOT have fewer than 5 characters',
      message: 'title: must NOT have fewer than 5 characters',
      instance: '/v1/petitions',
      request_id: '6f1c1d2e-8a4b-4c7d-9e0f-1a2b3c4d5e6f',
      errors: [{ field: 'title', message: 'must NOT have fewer than 5 characters', code: 'too_small' }],
    },
  ],
} as const;

/** An example problem of one status, for that answer of an operation. */
export function problemExample(status: number, instance: string, publicUrl: string): Record<string, unknown> {
  const [slug, type] = Object.entries(PROBLEM_TYPES).find(([, candidate]) => candidate.status === status) ?? ['bad-request', PROBLEM_TYPES['bad-request']];
  const message = type.about.split('. ')[0]!.replace(/\.$/, '') + '.';
  return {
    type: `${publicUrl}/problems/${slug}`,
    title: type.title,
    status,
    code: slug.replaceAll('-', '_'),
    detail: message,
    message,
    instance,
    request_id: '6f1c1d2e-8a4b-4c7d-9e0f-1a2b3c4d5e6f',
  };
}
