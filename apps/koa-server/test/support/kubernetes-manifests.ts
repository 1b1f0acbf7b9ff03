import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';

/** One YAML document of deploy/kubernetes, as read, with the file it came from. */
export interface Manifest {
  file: string;
  object: { apiVersion?: unknown; kind?: unknown; [field: string]: unknown };
}

/** The manifests by kind, each checked against Kubernetes' own schema (kubernetes-models). */
export interface Manifests {
  configMaps: ConfigMap[];
  secrets: Secret[];
  services: Service[];
  statefulSets: StatefulSet[];
  disruptionBudgets: PodDisruptionBudget[];
  autoscalers: HorizontalPodAutoscaler[];
}

/** kustomize's own file: not a Kubernetes object. */
export const KUSTOMIZATION = 'kustomization.yaml';

/** Every document of every `.yaml` file in `dir` but the kustomization, in file order. */
export function loadManifests(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') && file !== KUSTOMIZATION)
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map((document) => document.toJS() as unknown)
        .filter((object) => object !== null && object !== undefined)
        .map((object) => ({ file, object: object as Manifest['object'] })),
    );
}

/**
 * Builds each manifest's model and validates it: throws, naming the file and the kind, on a schema
 * error or a kind this folder is not expected to hold.
 */
export function validateManifests(manifests: Manifest[]): Manifests {
  const sorted: Manifests = { configMaps: [], secrets: [], services: [], statefulSets: [], disruptionBudgets: [], autoscalers: [] };
  for (const { file, object } of manifests) {
    const type = `${String(object.apiVersion)} ${String(object.kind)}`;
    const data = object as never;
    const add = <T extends { validate(): void }>(list: T[], model: T) => {
      try {
        model.validate();
      } catch (error) {
        throw new Error(`${file}: ${type}: ${(error as Error).message}`, { cause: error });
      }
      list.push(model);
    };
    if (type === 'v1 ConfigMap') add(sorted.configMaps, new ConfigMap(data));
    else if (type === 'v1 Secret') add(sorted.secrets, new Secret(data));
    else if (type === 'v1 Service') add(sorted.services, new Service(data));
    else if (type === 'apps/v1 StatefulSet') add(sorted.statefulSets, new StatefulSet(data));
    else if (type === 'policy/v1 PodDisruptionBudget') add(sorted.disruptionBudgets, new PodDisruptionBudget(data));
    else if (type === 'autoscaling/v2 HorizontalPodAutoscaler') add(sorted.autoscalers, new HorizontalPodAutoscaler(data));
    else throw new Error(`${file}: ${type}: not a kind this folder holds (no schema to check it against)`);
  }
  return sorted;
}
