// What GET /health costs next to GET /v1 (no I/O) on the same API process, in interleaved rounds.
// Issue 16: at least 0.50 × GET /v1, which needs the dependency status cached (for up to 1 s) rather
// than PostgreSQL and Temporal asked on every call. This scenario only measures.
import { measureInterleaved, ratioOf } from '../interleave.ts';
import { verdictFor, type ResultRow, type Scenario } from '../scenario.ts';

const NAME = 'health';
const MIN_RATIO = 0.5;

export const scenario: Scenario = {
  name: NAME,
  goal: `GET /health reaches at least ${MIN_RATIO.toFixed(2)} × the req/s of GET /v1 on the same API`,
  async run(env): Promise<ResultRow[]> {
    const [health, index] = await measureInterleaved(
      [
        { label: 'GET /health', url: `${env.apiUrl}/health` },
        { label: 'GET /v1', url: `${env.apiUrl}/v1` },
      ],
      env.load,
      env.log,
    );
    const ratio = ratioOf(health!, index!);
    return [
      {
        ...health!,
        scenario: NAME,
        target: 'GET /health',
        ratio,
        goal: `≥ ${MIN_RATIO.toFixed(2)} × GET /v1`,
        verdict: verdictFor(ratio >= MIN_RATIO, health!, index!),
      },
      { ...index!, scenario: NAME, target: 'GET /v1', ratio: null, goal: null, verdict: null },
    ];
  },
};
