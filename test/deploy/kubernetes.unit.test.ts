// deploy/kubernetes: every manifest parses, its configuration is what Rally reads (names from
// platform/config/schema.ts, values accepted by Rally's own loader), its ports and probe paths are the
// API's (openapi.json is written from the routes that serve), and its grace periods cover the drain.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../platform/config.ts';
import { ConfigSchema } from '../../platform/config/schema.ts';
import { TARGET_UTILISATION } from '../../scripts/bench/capacity.ts';
import { nodeArguments } from '../../scripts/lib/topology-processes.ts';

const DIR = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// platform/http-server.ts: after the readiness delay, requests in flight get this long to finish.
const API_DRAIN_MS = 10_000;

type Probe = { httpGet?: { path: string; port: string | number }; periodSeconds?: number; failureThreshold?: number };
type Container = {
  name: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }[];
  resources?: { requests?: { cpu?: string; memory?: string } };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
};
type PodSpec = { terminationGracePeriodSeconds?: number; containers: Container[] };
type Manifest = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec: Record<string, unknown> & { template?: { metadata: { labels: Record<string, string> }; spec: PodSpec }; selector?: Record<string, unknown> };
};

async function manifests(): Promise<Manifest[]> {
  const files = (await readdir(DIR)).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
  const documents = await Promise.all(
    files.map(async (file) =>
      parseAllDocuments(await readFile(`${DIR}${file}`, 'utf8')).map((document) => {
        expect(document.errors, file).to.deep.equal([]);
        return document.toJS() as Manifest;
      }),
    ),
  );
  return documents.flat();
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  let all: Manifest[];
  const one = (kind: string, name: string) => {
    const found = all.filter((manifest) => manifest.kind === kind && manifest.metadata.name === name);
    expect(found, `${kind} ${name}`).to.have.length(1);
    return found[0]!;
  };
  const pod = (name: string) => one('Deployment', name).spec.template!.spec;
  const container = (deployment: string, name: string) => pod(deployment).containers.find((each) => each.name === name)!;
  const podSpecs = () => all.filter((manifest) => manifest.spec?.template).map((manifest) => manifest.spec.template!.spec);
  const configMap = () => one('ConfigMap', 'rally-config');
  const secret = () => one('Secret', 'rally-secrets');
  /** What a container's process sees: the ConfigMap, the Secret (its placeholder key made a well-formed one), then `env`. */
  const environment = (each: Container): Record<string, string> => {
    const secrets = { ...secret().stringData, RALLY_ENCRYPTION_KEY: 'ab'.repeat(32) };
    const own = (each.env ?? []).map((variable) => {
      const ref = variable.valueFrom?.secretKeyRef;
      return [variable.name, variable.value ?? (ref ? secrets[ref.key as keyof typeof secrets] : undefined)];
    });
    return { ...configMap().data, ...secrets, ...Object.fromEntries(own) };
  };

  before(async () => {
    all = await manifests();
  });

  it('has Deployments for the API and worker, a migration Job, Services, a PodDisruptionBudget, an autoscaler, one ConfigMap and one Secret', () => {
    const kinds = new Set(all.map((manifest) => manifest.kind));
    expect([...kinds]).to.include.members(['Deployment', 'Job', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'ConfigMap', 'Secret']);
    expect(all.filter((manifest) => manifest.kind === 'ConfigMap' || manifest.kind === 'Secret').map((manifest) => manifest.metadata.name)).to.have.members([
      'rally-config',
      'rally-secrets',
    ]);
    expect(container('rally-api', 'api').command).to.deep.equal(['node', ...nodeArguments('api')]);
    expect(container('rally-api', 'identity').command).to.deep.equal(['node', ...nodeArguments('identity')]);
    expect(container('rally-worker', 'worker').command).to.deep.equal(['node', ...nodeArguments('worker')]);
    expect(one('Job', 'rally-migrate').spec.template!.spec.containers[0]!.command).to.deep.equal(['node', 'db/migrate-cli.ts']);
    for (const spec of podSpecs()) for (const each of spec.containers) expect(each.resources?.requests, each.name).to.include.keys('cpu', 'memory');
  });

  it("names only variables of Rally's configuration schema, from the one ConfigMap and the one Secret", () => {
    const known = new Set(Object.keys(ConfigSchema.properties));
    const names = [...Object.keys(configMap().data ?? {}), ...Object.keys(secret().stringData ?? {})];
    for (const spec of podSpecs()) {
      for (const each of spec.containers) {
        names.push(...(each.env ?? []).map((variable) => variable.name));
        for (const source of each.envFrom ?? [])
          expect(source.configMapRef?.name ?? source.secretRef?.name, each.name).to.be.oneOf(['rally-config', 'rally-secrets']);
        for (const variable of each.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) expect(secret().stringData, `${each.name}: ${variable.name}`).to.have.property(ref.key);
        }
      }
    }
    expect(
      names.filter((name) => !known.has(name)),
      'variables Rally does not read',
    ).to.deep.equal([]);
    const migrate = environment(one('Job', 'rally-migrate').spec.template!.spec.containers[0]!);
    expect(migrate.DATABASE_URL, 'migrations go straight to PostgreSQL (a session advisory lock)').to.equal(secret().stringData!.DATABASE_LISTEN_URL);
  });

  it("is accepted by Rally's configuration loader in production, for the API and for the worker", () => {
    expect(configMap().data!.NODE_ENV).to.equal('production');
    expect(() => loadConfig(environment(container('rally-api', 'api')), 'api')).to.not.throw();
    expect(() => loadConfig(environment(container('rally-worker', 'worker')), 'worker')).to.not.throw();
  });

  it("exposes the API's port and probes the API's liveness and readiness routes", async () => {
    const api = container('rally-api', 'api');
    const config = loadConfig(environment(api), 'api');
    const http = api.ports!.find((port) => port.containerPort === config.port);
    expect(http, `a container port for PORT=${config.port}`).to.not.equal(undefined);
    const paths = (JSON.parse(await readFile(`${ROOT}openapi.json`, 'utf8')) as { paths: Record<string, { get?: unknown }> }).paths;
    for (const [kind, path] of [
      ['livenessProbe', '/health/live'],
      ['readinessProbe', '/health/ready'],
    ] as const) {
      const probe = api[kind]!.httpGet!;
      expect(probe.path, kind).to.equal(path);
      expect(paths[probe.path]?.get, `GET ${probe.path} is a route of the API`).to.not.equal(undefined);
      expect([http!.name, http!.containerPort], kind).to.include(probe.port);
    }
    const service = one('Service', 'rally-api');
    expect(service.spec.selector).to.deep.equal(one('Deployment', 'rally-api').spec.selector!.matchLabels);
    expect((service.spec.ports as { targetPort: string | number }[]).map((port) => port.targetPort)).to.deep.equal([http!.name]);
    const worker = container('rally-worker', 'worker');
    const workerConfig = loadConfig(environment(worker), 'worker');
    expect(worker.ports!.map((port) => port.containerPort)).to.deep.equal([workerConfig.observability.workerMetricsPort]);
  });

  it('gives each process the grace its drain needs, and takes a draining API out before it stops serving', () => {
    const api = container('rally-api', 'api');
    const { shutdown } = loadConfig(environment(api), 'api');
    const readiness = api.readinessProbe!;
    expect(readiness.periodSeconds! * readiness.failureThreshold! * 1000, 'readiness fails within RALLY_API_SHUTDOWN_DELAY').to.be.below(
      shutdown.apiReadinessDelayMs,
    );
    expect(pod('rally-api').terminationGracePeriodSeconds! * 1000, 'API grace').to.be.at.least(shutdown.apiReadinessDelayMs + API_DRAIN_MS);
    const workerGraceMs = loadConfig(environment(container('rally-worker', 'worker')), 'worker').shutdown.workerGraceMs;
    expect(pod('rally-worker').terminationGracePeriodSeconds! * 1000, 'worker grace').to.be.above(workerGraceMs);
  });

  it('keeps one API pod serving through disruptions and scales the API Deployment', () => {
    const labels = one('Deployment', 'rally-api').spec.template!.metadata.labels;
    const budget = one('PodDisruptionBudget', 'rally-api').spec as { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number };
    expect(labels).to.include(budget.selector.matchLabels);
    const autoscaler = one('HorizontalPodAutoscaler', 'rally-api').spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number };
    expect(autoscaler.scaleTargetRef).to.include({ kind: 'Deployment', name: 'rally-api' });
    expect(autoscaler.minReplicas, 'more API pods than the budget lets go at once').to.be.above(budget.maxUnavailable ?? 0);
  });

  it('requests for each API and worker process the share of a core the capacity model plans, and scales the API at it', () => {
    const millicores = (each: Container) => Number(/^(\d+)m$/.exec(each.resources!.requests!.cpu!)?.[1]);
    for (const each of [container('rally-api', 'api'), container('rally-worker', 'worker')])
      expect(millicores(each), each.name).to.equal(TARGET_UTILISATION * 1000);
    const target = (one('HorizontalPodAutoscaler', 'rally-api').spec as { metrics: { resource: { name: string; target: { averageUtilization: number } } }[] })
      .metrics;
    expect(target.map((metric) => [metric.resource.name, metric.resource.target.averageUtilization])).to.deep.equal([['cpu', 100]]);
  });
});
