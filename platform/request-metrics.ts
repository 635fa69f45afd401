// The API's per-request series: rally_http_requests_total and rally_http_request_duration_seconds,
// by route template, method and status. Every request records into plain numbers found by one
// string lookup; the registry renders them at scrape time in the same exposition prom-client gives
// its own Counter and Histogram. prom-client's classes copy, validate and hash the labels on every
// observation, which cost the lightest routes about a tenth of their time (profiled on GET /v1).
import type client from 'prom-client';

type Labels = Readonly<{ route: string; method: string; status: string }>;
type Series = { labels: Labels; count: number; sum: number; buckets: number[] };
type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

export type RequestMetrics = {
  /** One answered request: its route template (never the raw path), method, status and duration. */
  record(route: string, method: string, status: string, seconds: number): void;
};

// The registry asks each metric for its samples (get) and may reset it; these are the fields it reads.
type CollectedMetric = { name: string; help: string; type: 'counter' | 'histogram'; get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>; reset(): void };

export function createRequestMetrics(registry: client.Registry, options: { buckets: readonly number[] }): RequestMetrics {
  const bounds = [...options.buckets].sort((a, b) => a - b);
  let series = new Map<string, Series>();

  const collected = (name: string, help: string, type: CollectedMetric['type'], samples: () => Sample[]): CollectedMetric => ({
    name, help, type,
    get: async () => ({ name, help, type, values: samples(), aggregator: 'sum' }),
    reset: () => {
      series = new Map();
    },
  });

  const requests = collected('rally_http_requests_total', 'HTTP requests answered by the API, by route template, method and status.', 'counter',
    () => [...series.values()].map((one) => ({ labels: { ...one.labels }, value: one.count })));

  const duration = collected('rally_http_request_duration_seconds', 'Time from receiving a request to sending its answer, by route template, method and status.', 'histogram', () => {
    const samples: Sample[] = [];
    for (const one of series.values()) {
      // Buckets are cumulative in the exposition: each counts the answers at or below its bound.
      let cumulative = 0;
      bounds.forEach((bound, index) => {
        cumulative += one.buckets[index]!;
        samples.push({ labels: { ...one.labels, le: bound }, value: cumulative, metricName: 'rally_http_request_duration_seconds_bucket' });
      });
      samples.push({ labels: { ...one.labels, le: '+Inf' }, value: one.count, metricName: 'rally_http_request_duration_seconds_bucket' });
      samples.push({ labels: { ...one.labels }, value: one.sum, metricName: 'rally_http_request_duration_seconds_sum' });
      samples.push({ labels: { ...one.labels }, value: one.count, metricName: 'rally_http_request_duration_seconds_count' });
    }
    return samples;
  });

  // The registry takes any object with these fields; its type names only prom-client's own classes.
  registry.registerMetric(requests as unknown as client.Metric);
  registry.registerMetric(duration as unknown as client.Metric);

  return {
    record(route, method, status, seconds) {
      const key = `${route} ${method} ${status}`;
      let one = series.get(key);
      if (!one) {
        one = { labels: { route, method, status }, count: 0, sum: 0, buckets: bounds.map(() => 0) };
        series.set(key, one);
      }
      one.count += 1;
      one.sum += seconds;
      for (let index = 0; index < bounds.length; index += 1) {
        if (seconds <= bounds[index]!) {
          one.buckets[index]! += 1;
          break;
        }
      }
    },
  };
}
