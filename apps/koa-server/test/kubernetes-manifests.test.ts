import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { documentedSecrets, documentedVariables } from './support/configuration-table.js';
import { containerEnvironment } from './support/kubernetes-environment.js';
import { KUSTOMIZATION, loadManifests, validateManifests, type Manifests } from './support/kubernetes-manifests.js';
import { RULES, type Facts } from './support/kubernetes-rules.js';

// deploy/kubernetes against Kubernetes' own schemas (offline: kubernetes-models, decision 041) and
// the contract's rules ("Operating it"), read against the docs, the Dockerfile and the bench.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DIR = join(ROOT, 'deploy/kubernetes');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function readFacts(): Facts {
  const configuration = read('docs/configuration.md');
  const finalStage = read('Dockerfile')
    .split(/^FROM /m)
    .at(-1)!;
  const imageEnv = new Map(
    [...finalStage.matchAll(/^ENV (.+)$/gm)].flatMap((line) =>
      [...line[1]!.matchAll(/(\w+)=(\S+)/g)].map((pair): [string, string] => [pair[1]!, pair[2]!]),
    ),
  );
  // The service's rows of the bench's peak-memory table: the peak RSS column (the last but one).
  const peakTable = read('BENCHMARKS.md').split('| peak memory run')[1]!.split('\n\n')[0]!;
  const peaks = peakTable
    .split('\n')
    .filter((row) => row.startsWith('| service:'))
    .map((row) => Number(row.split('|').at(-3)));
  return {
    documented: documentedVariables(configuration),
    secrets: documentedSecrets(configuration),
    workdir: [...finalStage.matchAll(/^WORKDIR (\S+)$/gm)].at(-1)![1]!,
    imageEnv,
    peakRssMb: Math.max(...peaks),
  };
}

const facts = readFacts();
const manifests = () => validateManifests(loadManifests(DIR));

describe('deploy/kubernetes', () => {
  it('reads its facts from the docs, the Dockerfile and the bench', () => {
    // Empty facts would let the rules pass on nothing.
    expect(facts.documented.size).toBeGreaterThan(40);
    expect(facts.documented.get('SHUTDOWN_TIMEOUT_MS')).toBe('10000');
    expect(facts.documented.get('ACTIVITY_LOG_SPOOL')).toBe('./data/activity-spool');
    expect(facts.secrets).toEqual(expect.arrayContaining(['SESSION_KEYS', 'UPSTREAM_TOKEN', 'METRICS_TOKEN']));
    expect(facts.workdir).toBe('/app');
    expect(facts.imageEnv.get('PORT')).toBe('3000');
    expect(facts.peakRssMb).toBeGreaterThan(100);
  });

  it('holds only Kubernetes objects its schemas accept, each kind the contract names', () => {
    const found = manifests();
    for (const kind of Object.keys(found) as (keyof Manifests)[]) expect(found[kind].length, kind).toBeGreaterThan(0);
  });

  it('refuses a field its schema does not accept', () => {
    const objects = loadManifests(DIR);
    const statefulSet = objects.find((manifest) => manifest.object.kind === 'StatefulSet')!;
    const broken = structuredClone(statefulSet.object) as {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } };
    };
    broken.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'http';
    expect(() => validateManifests([{ ...statefulSet, object: broken }])).toThrow(
      /statefulset\.yaml: apps\/v1 StatefulSet: .*containerPort must be integer/,
    );
    expect(() => validateManifests([{ file: 'x.yaml', object: { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor' } }])).toThrow(
      /no schema/,
    );
  });

  it(`lists every manifest file in ${KUSTOMIZATION}, and only those`, () => {
    const kustomization = parse(readFileSync(join(DIR, KUSTOMIZATION), 'utf8')) as { resources: string[] };
    const files = readdirSync(DIR).filter((file) => file.endsWith('.yaml') && file !== KUSTOMIZATION);
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it.each(Object.keys(RULES))('%s', (rule) => {
    expect(RULES[rule]!(manifests(), facts)).toEqual([]);
  });

  it("sets an environment the service's own configuration accepts in production", () => {
    expect(configurationErrors(manifests())).toEqual([]);
    const proxiesByCount = manifests();
    proxiesByCount.configMaps[0]!.data!.TRUST_PROXY = '1';
    expect(configurationErrors(proxiesByCount)).toEqual([expect.stringMatching(/^TRUST_PROXY /)]);
  });
});

/** loadConfig's complaints about the pod's environment, the claim's folder standing in a temporary one (it must exist). */
function configurationErrors(m: Manifests): string[] {
  const container = m.statefulSets[0]!.spec!.template.spec!.containers[0]!;
  const mountPath = container.volumeMounts![0]!.mountPath;
  const folder = mkdtempSync(join(tmpdir(), 'kubernetes-manifests-'));
  try {
    const env = Object.fromEntries(
      containerEnvironment(container, m).variables.map((variable) => [variable.name, (variable.value ?? '').replace(mountPath, folder)]),
    );
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [...error.problems];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// Each rule fails when the manifests break it: a change to a fresh copy, and what the rule says.
const statefulSet = (m: Manifests) => m.statefulSets[0]!;
const pod = (m: Manifests) => statefulSet(m).spec!.template.spec!;
const container = (m: Manifests) => pod(m).containers[0]!;
const configMap = (m: Manifests) => m.configMaps[0]!.data!;
const BROKEN: [string, (m: Manifests) => void, RegExp][] = [
  ['liveness on /readyz', (m) => void (container(m).livenessProbe!.httpGet!.path = '/readyz'), /liveness probe on \/readyz/],
  ['no startup probe', (m) => void delete container(m).startupProbe, /no startup HTTP probe/],
  ['readiness on another port', (m) => void (container(m).readinessProbe!.httpGet!.port = 9090), /readiness probe not on PORT 3000/],
  [
    'the data folder on an emptyDir',
    (m) => {
      container(m).volumeMounts![0]!.name = 'scratch';
      pod(m).volumes = [{ name: 'scratch', emptyDir: {} }];
    },
    /ACTIVITY_LOG_SPOOL \(\/app\/data\/activity-spool\) is on the emptyDir scratch/,
  ],
  [
    'the spool moved off the claim',
    (m) => void (configMap(m).ACTIVITY_LOG_SPOOL = '/tmp/spool'),
    /ACTIVITY_LOG_SPOOL \(\/tmp\/spool\) is on the container's own filesystem/,
  ],
  [
    'the dead-letter file left at its default, off the mount',
    (m) => void (container(m).volumeMounts![0]!.mountPath = '/var/data'),
    /ACTIVITY_LOG_DEAD_LETTER .* is on the container's own filesystem/,
  ],
  [
    'a claim smaller than the bounds',
    (m) => void (statefulSet(m).spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage = '256Mi'),
    /not above the bounds' 335544320/,
  ],
  [
    'a grace period of 10 s',
    (m) => void (pod(m).terminationGracePeriodSeconds = 10),
    /terminationGracePeriodSeconds 10 is not above 10000 ms/,
  ],
  [
    'a longer stop budget',
    (m) => void (configMap(m).SHUTDOWN_TIMEOUT_MS = '30000'),
    /terminationGracePeriodSeconds 20 is not above 30000 ms/,
  ],
  [
    'a writable root filesystem',
    (m) => void (container(m).securityContext!.readOnlyRootFilesystem = false),
    /readOnlyRootFilesystem is not true/,
  ],
  ['no numeric user', (m) => void delete pod(m).securityContext!.runAsUser, /no numeric non-root runAsUser/],
  ['capabilities kept', (m) => void delete container(m).securityContext!.capabilities, /capabilities do not drop ALL/],
  [
    'a memory limit below the bench',
    (m) => void (container(m).resources!.limits!.memory = '128Mi'),
    /memory limit 134217728 bytes not above the bench's peak RSS/,
  ],
  ['no CPU request', (m) => void delete container(m).resources!.requests!.cpu, /no cpu requests/],
  ['no PodDisruptionBudget', (m) => void m.disruptionBudgets.pop(), /no PodDisruptionBudget selects the pods/],
  ['no autoscaler', (m) => void m.autoscalers.pop(), /no HorizontalPodAutoscaler scales StatefulSet cotizaciones/],
  ['replicas in the StatefulSet', (m) => void (statefulSet(m).spec!.replicas = 3), /the StatefulSet sets replicas/],
  [
    'no headless Service',
    (m) => void delete m.services.find((service) => service.spec?.clusterIP === 'None')!.spec!.clusterIP,
    /no headless Service/,
  ],
  [
    'a token in the ConfigMap',
    (m) => void (configMap(m).METRICS_TOKEN = 'replace-me-metrics-token'),
    /METRICS_TOKEN holds a secret outside a Secret \(configMap\)/,
  ],
  [
    'a password in a ConfigMap URL',
    (m) => void (configMap(m).ACTIVITY_LOG_URL = 'postgres://app:s3cret@db/x'),
    /ACTIVITY_LOG_URL holds a secret outside a Secret/,
  ],
  [
    'a token inline',
    (m) => void (container(m).env = [{ name: 'UPSTREAM_TOKEN', value: 'replace-me' }]),
    /UPSTREAM_TOKEN holds a secret outside a Secret \(inline\)/,
  ],
  [
    'a Secret with a real-looking value',
    (m) => void (m.secrets[0]!.stringData!.UPSTREAM_TOKEN = 'eyJhbGciOi'),
    /the Secret's UPSTREAM_TOKEN is not an obvious placeholder/,
  ],
  ['a Secret the pod names but the folder lacks', (m) => void m.secrets.pop(), /Secret cotizaciones is not in the folder/],
  [
    'an undocumented variable',
    (m) => void (configMap(m).SPOOL_DIR = '/app/data'),
    /SPOOL_DIR \(configMap\) is not in docs\/configuration.md/,
  ],
  [
    'no scrape annotation',
    (m) => void delete statefulSet(m).spec!.template.metadata!.annotations!['prometheus.io/scrape'],
    /annotation prometheus.io\/scrape is undefined/,
  ],
];

describe('the rules on broken manifests', () => {
  it.each(BROKEN)('%s', (_name, breakIt, expected) => {
    const broken = manifests();
    breakIt(broken);
    const problems = Object.values(RULES).flatMap((rule) => rule(broken, facts));
    expect(problems).toContainEqual(expect.stringMatching(expected));
  });
});
