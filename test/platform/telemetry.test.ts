// Tracing is configured by NodeSDK from the standard OTEL_* variables (platform/telemetry.ts), so the
// variables the OpenTelemetry specification defines mean what it says, not only the two Rally reads.
import { expect } from 'chai';
import { eventually } from '../support/events.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { startApi } from '../support/processes.ts';

// Nothing listens on the discard port: spans sent there are lost.
const NOWHERE = 'http://127.0.0.1:9';

describe('tracing from the standard OTEL_* variables (platform/telemetry.ts)', function () {
  this.timeout(90_000);

  it('exports spans to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, which overrides OTEL_EXPORTER_OTLP_ENDPOINT for traces', async () => {
    const otlp = await startOtlpReceiver();
    const api = await startApi({
      OTEL_EXPORTER_OTLP_ENDPOINT: NOWHERE,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    try {
      expect((await fetch(`${api.baseUrl}/v1`)).status).to.equal(200);
      const served = await eventually(
        async () => otlp.spans().find((span) => span.service === 'rally-api' && span.kind === 2),
        20_000,
        'a server span of the API',
      );
      expect(served.attributes['http.target']).to.equal('/v1');
    } finally {
      await api.stop();
      await otlp.close();
    }
  });
});
