import type { IContainer } from 'kubernetes-models/v1';
import type { Manifests } from './kubernetes-manifests.js';

/** A variable the manifests give the container, and where its value comes from. */
export interface SetVariable {
  name: string;
  value: string | undefined;
  from: 'configMap' | 'secret' | 'inline';
}

/** What the container's environment holds: its envFrom ConfigMaps and Secrets, then its own env. */
export function containerEnvironment(container: IContainer, manifests: Manifests): { variables: SetVariable[]; missing: string[] } {
  const variables: SetVariable[] = [];
  const missing: string[] = [];
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef !== undefined) {
      const map = manifests.configMaps.find((candidate) => candidate.metadata?.name === source.configMapRef!.name);
      if (map === undefined) missing.push(`ConfigMap ${source.configMapRef.name}`);
      for (const [name, value] of Object.entries(map?.data ?? {})) variables.push({ name, value, from: 'configMap' });
    }
    if (source.secretRef !== undefined) {
      const secret = manifests.secrets.find((candidate) => candidate.metadata?.name === source.secretRef!.name);
      if (secret === undefined) missing.push(`Secret ${source.secretRef.name}`);
      for (const [name, value] of secretEntries(secret)) variables.push({ name, value, from: 'secret' });
    }
  }
  for (const entry of container.env ?? []) {
    const secretKey = entry.valueFrom?.secretKeyRef;
    const mapKey = entry.valueFrom?.configMapKeyRef;
    if (secretKey !== undefined) {
      const secret = manifests.secrets.find((candidate) => candidate.metadata?.name === secretKey.name);
      if (secret === undefined) missing.push(`Secret ${secretKey.name}`);
      variables.push({ name: entry.name, value: new Map(secretEntries(secret)).get(secretKey.key), from: 'secret' });
    } else if (mapKey !== undefined) {
      const map = manifests.configMaps.find((candidate) => candidate.metadata?.name === mapKey.name);
      if (map === undefined) missing.push(`ConfigMap ${mapKey.name}`);
      variables.push({ name: entry.name, value: map?.data?.[mapKey.key], from: 'configMap' });
    } else variables.push({ name: entry.name, value: entry.value, from: 'inline' });
  }
  return { variables, missing };
}

/** A Secret's values: `stringData` as written, `data` decoded from base64. */
export function secretEntries(secret: Manifests['secrets'][number] | undefined): [string, string][] {
  return [
    ...Object.entries(secret?.data ?? {}).map(([name, value]): [string, string] => [name, Buffer.from(value, 'base64').toString('utf8')]),
    ...Object.entries(secret?.stringData ?? {}),
  ];
}

const UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  m: 1e-3,
};

/** A Kubernetes quantity (`320Mi`, `1Gi`, `1500m`, `1`) as a number of bytes or cores. */
export function quantity(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)([kMGTm]|[KMGT]i)?$/.exec(String(value));
  return match === null ? undefined : Number(match[1]) * UNITS[match[2] ?? '']!;
}
