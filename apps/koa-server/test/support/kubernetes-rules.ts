import { posix } from 'node:path';
import type { IContainer, IProbe } from 'kubernetes-models/v1';
import { containerEnvironment, quantity, secretEntries } from './kubernetes-environment.js';
import type { Manifests } from './kubernetes-manifests.js';

/** What the rules read besides the manifests: the docs, the Dockerfile and the bench. */
export interface Facts {
  /** docs/configuration.md: every variable and its documented default. */
  documented: Map<string, string | undefined>;
  /** docs/configuration.md: the variables it calls secrets. */
  secrets: string[];
  /** The Dockerfile's final stage: WORKDIR and ENV. */
  workdir: string;
  imageEnv: Map<string, string>;
  /** BENCHMARKS.md: the highest peak RSS, MB, of the service at 256 connections. */
  peakRssMb: number;
}

type Rule = (manifests: Manifests, facts: Facts) => string[];

// Names that hold a secret whatever the docs call them, and values that carry one (a URL's password, phpredis's auth=).
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|_KEYS|HEADERS)$/;
const SECRET_VALUE = /:\/\/[^/\s@]*:[^/\s@]*@|[?&]auth(\[\])?=/;

/** The contract's rules for deploy/kubernetes ("Operating it"), each giving what breaks it. */
export const RULES: Record<string, Rule> = {
  'one StatefulSet runs the service': (m) =>
    m.statefulSets.length === 1 && serviceContainer(m) !== undefined ? [] : ['expected one StatefulSet with one container'],

  'liveness on /healthz, readiness on /readyz, a startup probe, each on the port the service listens on': (m, facts) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    const port = setting('PORT', m, facts);
    const check = (kind: string, probe: IProbe | undefined, path: string) => {
      if (probe?.httpGet === undefined) return [`no ${kind} HTTP probe`];
      const problems = probe.httpGet.path === path ? [] : [`${kind} probe on ${probe.httpGet.path}, not ${path}`];
      if (String(containerPort(container, probe.httpGet.port)) !== port) problems.push(`${kind} probe not on PORT ${port}`);
      return problems;
    };
    return [
      ...check('liveness', container.livenessProbe, '/healthz'),
      ...check('readiness', container.readinessProbe, '/readyz'),
      ...check('startup', container.startupProbe, '/healthz'),
    ];
  },

  'the spool and the dead-letter file on a claim template, never an emptyDir': (m, facts) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    const claims = new Set((m.statefulSets[0]!.spec?.volumeClaimTemplates ?? []).map((claim) => claim.metadata?.name));
    const podVolumes = m.statefulSets[0]!.spec?.template.spec?.volumes ?? [];
    return ['ACTIVITY_LOG_SPOOL', 'ACTIVITY_LOG_DEAD_LETTER'].flatMap((name) => {
      const path = posix.resolve(facts.workdir, setting(name, m, facts) ?? '');
      const mount = coveringMount(container, path);
      if (mount === undefined) return [`${name} (${path}) is on the container's own filesystem`];
      const volume = podVolumes.find((candidate) => candidate.name === mount.name);
      if (volume?.emptyDir !== undefined) return [`${name} (${path}) is on the emptyDir ${mount.name}`];
      return claims.has(mount.name) && volume === undefined ? [] : [`${name} (${path}) is on ${mount.name}, not a claim template`];
    });
  },

  "the claim holds the spool's and the dead-letter file's bounds together": (m, facts) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    const mount = coveringMount(container, posix.resolve(facts.workdir, setting('ACTIVITY_LOG_SPOOL', m, facts) ?? ''));
    const claim = m.statefulSets[0]!.spec?.volumeClaimTemplates?.find((template) => template.metadata?.name === mount?.name);
    const size = quantity(claim?.spec?.resources?.requests?.storage);
    const bounds = ['ACTIVITY_LOG_SPOOL_MAX_BYTES', 'ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES'].map((name) => Number(setting(name, m, facts)));
    const needed = bounds[0]! + bounds[1]!;
    return size !== undefined && size > needed ? [] : [`claim of ${size} bytes, not above the bounds' ${needed}`];
  },

  "a grace period above the stop's budget (SHUTDOWN_TIMEOUT_MS)": (m, facts) => {
    const grace = m.statefulSets[0]?.spec?.template.spec?.terminationGracePeriodSeconds;
    const budget = Number(setting('SHUTDOWN_TIMEOUT_MS', m, facts));
    return grace !== undefined && grace * 1000 > budget ? [] : [`terminationGracePeriodSeconds ${grace} is not above ${budget} ms`];
  },

  'non-root, read-only root filesystem, no privilege escalation, no capabilities, RuntimeDefault seccomp': (m) => {
    const container = serviceContainer(m);
    const pod = m.statefulSets[0]?.spec?.template.spec?.securityContext ?? {};
    const own = container?.securityContext ?? {};
    const problems: string[] = [];
    if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) problems.push('runAsNonRoot is not true');
    const user = own.runAsUser ?? pod.runAsUser;
    if (user === undefined || user === 0) problems.push('no numeric non-root runAsUser (the image names its user)');
    if (own.readOnlyRootFilesystem !== true) problems.push('readOnlyRootFilesystem is not true');
    if (own.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation is not false');
    if (!(own.capabilities?.drop ?? []).includes('ALL')) problems.push('capabilities do not drop ALL');
    if ((own.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault') problems.push('seccompProfile is not RuntimeDefault');
    return problems;
  },

  'requests and limits from the bench: the memory limit above its peak RSS': (m, facts) => {
    const resources = serviceContainer(m)?.resources;
    const problems = ['requests', 'limits'].flatMap((kind) =>
      ['cpu', 'memory']
        .filter((resource) => quantity(resources?.[kind as 'requests' | 'limits']?.[resource]) === undefined)
        .map((resource) => `no ${resource} ${kind}`),
    );
    const limit = quantity(resources?.limits?.memory) ?? 0;
    if (limit <= facts.peakRssMb * 1e6) problems.push(`memory limit ${limit} bytes not above the bench's peak RSS ${facts.peakRssMb} MB`);
    return problems;
  },

  'a PodDisruptionBudget for the pods': (m) =>
    m.disruptionBudgets.some(
      (budget) =>
        selects(budget.spec?.selector?.matchLabels, m) && (budget.spec?.maxUnavailable ?? budget.spec?.minAvailable) !== undefined,
    )
      ? []
      : ['no PodDisruptionBudget selects the pods'],

  'a HorizontalPodAutoscaler on CPU owns the replicas': (m) => {
    const name = m.statefulSets[0]?.metadata?.name;
    const autoscaler = m.autoscalers.find(
      (candidate) => candidate.spec?.scaleTargetRef.kind === 'StatefulSet' && candidate.spec.scaleTargetRef.name === name,
    );
    if (autoscaler === undefined) return [`no HorizontalPodAutoscaler scales StatefulSet ${name}`];
    const problems = autoscaler.spec?.metrics?.some((metric) => metric.resource?.name === 'cpu')
      ? []
      : ['the autoscaler does not scale on CPU'];
    if ((autoscaler.spec?.minReplicas ?? 1) < 2) problems.push('minReplicas below 2: a disruption would leave no pod');
    // An apply would otherwise reset the autoscaler's count.
    if (m.statefulSets[0]?.spec?.replicas !== undefined) problems.push('the StatefulSet sets replicas, which the autoscaler owns');
    return problems;
  },

  "a Service to the pods' port, and the headless Service the StatefulSet names": (m) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    const problems = m.services.some(
      (service) =>
        service.spec?.clusterIP !== 'None' &&
        selects(service.spec?.selector, m) &&
        (service.spec?.ports ?? []).some((port) => containerPort(container, port.targetPort ?? port.port) !== undefined),
    )
      ? []
      : ["no Service sends to the pods' container port"];
    const governing = m.services.find((service) => service.metadata?.name === m.statefulSets[0]!.spec?.serviceName);
    if (governing?.spec?.clusterIP !== 'None' || !selects(governing.spec.selector, m))
      problems.push('no headless Service named by serviceName');
    return problems;
  },

  'secrets only from a Secret, every value of it a placeholder': (m, facts) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    const { variables, missing } = containerEnvironment(container, m);
    const problems = missing.map((what) => `${what} is not in the folder`);
    for (const variable of variables.filter((candidate) => candidate.from !== 'secret')) {
      if (facts.secrets.includes(variable.name) || SECRET_NAME.test(variable.name) || SECRET_VALUE.test(variable.value ?? ''))
        problems.push(`${variable.name} holds a secret outside a Secret (${variable.from})`);
    }
    for (const [name, value] of m.secrets.flatMap((secret) => secretEntries(secret)))
      if (!value.includes('replace-me')) problems.push(`the Secret's ${name} is not an obvious placeholder`);
    return problems;
  },

  'every variable set is documented in docs/configuration.md': (m, facts) => {
    const container = serviceContainer(m);
    if (container === undefined) return [];
    return containerEnvironment(container, m)
      .variables.filter((variable) => !facts.documented.has(variable.name))
      .map((variable) => `${variable.name} (${variable.from}) is not in docs/configuration.md`);
  },

  'scraped by annotations on the port and path of /metrics': (m, facts) => {
    const annotations = m.statefulSets[0]?.spec?.template.metadata?.annotations ?? {};
    const expected = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': setting('PORT', m, facts), 'prometheus.io/path': '/metrics' };
    return Object.entries(expected)
      .filter(([name, value]) => annotations[name] !== value)
      .map(([name, value]) => `annotation ${name} is ${annotations[name]}, not ${value}`);
  },
};

/** The service's container (the StatefulSet's only one). */
function serviceContainer(m: Manifests): IContainer | undefined {
  const containers = m.statefulSets[0]?.spec?.template.spec?.containers ?? [];
  return containers.length === 1 ? containers[0] : undefined;
}

/** A variable's value in the pod: the manifests', else the image's ENV, else the documented default. */
function setting(name: string, m: Manifests, facts: Facts): string | undefined {
  const container = serviceContainer(m);
  const set =
    container === undefined ? undefined : containerEnvironment(container, m).variables.findLast((variable) => variable.name === name);
  return set?.value ?? facts.imageEnv.get(name) ?? facts.documented.get(name);
}

/** The container's mount a path is on: the deepest whose folder holds it. */
function coveringMount(container: IContainer, path: string) {
  return (container.volumeMounts ?? [])
    .filter((mount) => path === mount.mountPath || path.startsWith(`${mount.mountPath.replace(/\/$/, '')}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
}

/** A probe's or a Service's port (a number or a port name) as the container's port number. */
function containerPort(container: IContainer, port: string | number | undefined): number | undefined {
  const ports = container.ports ?? [];
  return typeof port === 'number'
    ? ports.find((candidate) => candidate.containerPort === port)?.containerPort
    : ports.find((candidate) => candidate.name === port)?.containerPort;
}

/** Whether a label selector picks the StatefulSet's pods. */
function selects(selector: Record<string, string> | undefined, m: Manifests): boolean {
  const labels = m.statefulSets[0]?.spec?.template.metadata?.labels ?? {};
  return (
    selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value)
  );
}
