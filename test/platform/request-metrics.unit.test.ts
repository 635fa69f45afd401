// The per-request series in Prometheus text format (https://prometheus.io/docs/instrumenting/exposition_formats/):
// a counter per label set, and a histogram whose `_bucket` samples are cumulative, end with
// le="+Inf" equal to `_count`, and come with `_sum`.
import { expect } from 'chai';
import client from 'prom-client';
import { createRequestMetrics } from '../../platform/request-metrics.ts';
import { parseExposition, sampleValue } from '../support/prometheus.ts';

describe('request metrics (platform/request-metrics.ts)', () => {
  const exposition = async (record: (metrics: ReturnType<typeof createRequestMetrics>) => void) => {
    const registry = new client.Registry();
    const metrics = createRequestMetrics(registry, { buckets: [0.01, 0.1, 1] });
    record(metrics);
    return { registry, lines: (await registry.metrics()).split('\n') };
  };

  it('counts answers per route template, method and status', async () => {
    const { lines } = await exposition((metrics) => {
      metrics.record('/v1/petitions/:id', 'GET', '200', 0.002);
      metrics.record('/v1/petitions/:id', 'GET', '200', 0.004);
      metrics.record('/v1/petitions/:id', 'GET', '404', 0.001);
    });
    expect(lines).to.include('# TYPE rally_http_requests_total counter');
    expect(lines).to.include('rally_http_requests_total{route="/v1/petitions/:id",method="GET",status="200"} 2');
    expect(lines).to.include('rally_http_requests_total{route="/v1/petitions/:id",method="GET",status="404"} 1');
  });

  it('writes cumulative buckets, +Inf equal to the count, and the sum', async () => {
    const { lines } = await exposition((metrics) => {
      for (const seconds of [0.005, 0.05, 0.05, 0.5, 5]) metrics.record('/v1', 'GET', '200', seconds);
    });
    expect(lines).to.include('# TYPE rally_http_request_duration_seconds histogram');
    const samples = parseExposition(lines.join('\n'));
    const labels = { route: '/v1', method: 'GET', status: '200' };
    const bucket = (le: string) => sampleValue(samples, 'rally_http_request_duration_seconds_bucket', { ...labels, le });
    expect([bucket('0.01'), bucket('0.1'), bucket('1'), bucket('+Inf')]).to.deep.equal([1, 3, 4, 5]);
    expect(sampleValue(samples, 'rally_http_request_duration_seconds_count', labels)).to.equal(5);
    expect(sampleValue(samples, 'rally_http_request_duration_seconds_sum', labels)).to.be.closeTo(5.605, 1e-9);
  });

  it('escapes label values as the format requires', async () => {
    const { lines } = await exposition((metrics) => metrics.record('unmatched "x"\\y', 'GET', '404', 0.001));
    expect(lines).to.include('rally_http_requests_total{route="unmatched \\"x\\"\\\\y",method="GET",status="404"} 1');
  });

  it("keeps the series in prom-client's own Counter and Histogram, with no Prometheus writer of its own", async () => {
    const { registry } = await exposition((metrics) => metrics.record('/v1', 'GET', '200', 0.001));
    expect(registry.getSingleMetric('rally_http_requests_total')).to.be.instanceOf(client.Counter);
    expect(registry.getSingleMetric('rally_http_request_duration_seconds')).to.be.instanceOf(client.Histogram);
  });

  it('starts over when the registry is reset', async () => {
    const { registry } = await exposition((metrics) => metrics.record('/v1', 'GET', '200', 0.001));
    registry.resetMetrics();
    expect(await registry.metrics()).not.to.include('rally_http_requests_total{');
  });
});
