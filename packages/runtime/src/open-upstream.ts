import type { TokenSource } from '@cotizaciones/core';
import { sessionTokenSource, staticTokenSource, type ClosableUpstream } from '@cotizaciones/adapters';
import { demoUpstream } from './demo-upstream.js';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * The upstream client the configuration names, or the demo upstream when UPSTREAM_BASE_URL is unset.
 * got and undici are imported only when chosen, so a process carries only the client it uses.
 */
export async function openUpstream(config: RuntimeConfig): Promise<ClosableUpstream> {
  const baseUrl = config.upstreamBaseUrl;
  // The demo keeps no connection: nothing to close.
  if (baseUrl === undefined) return { ...demoUpstream(), close: () => undefined };
  const options = { baseUrl, timeoutMs: config.upstreamTimeoutMs, maxResponseBytes: config.upstreamMaxResponseBytes };
  return config.upstreamClient === 'undici'
    ? (await import('@cotizaciones/adapters/undici')).undiciUpstream(options)
    : (await import('@cotizaciones/adapters/got')).gotUpstream(options);
}

export async function openTokenSource(config: RuntimeConfig): Promise<TokenSource> {
  const source = config.tokenSource;
  switch (source.kind) {
    case 'static':
      return staticTokenSource(source.token);
    case 'session':
      return sessionTokenSource(source.key);
    case 'client-credentials': {
      const { clientCredentialsTokenSource } = await import('@cotizaciones/adapters/oauth');
      return clientCredentialsTokenSource({ ...source, timeoutMs: config.upstreamTimeoutMs });
    }
  }
}

/** The upstream for a log line: client, scheme, host, port and path only (no user name, password or query). */
export function describeUpstream(config: RuntimeConfig): string {
  const target = upstreamTarget(config);
  return target === undefined ? 'demo (built in)' : `${config.upstreamClient} → ${target}`;
}

/** Where changes go: the upstream's base URL without credentials or query; undefined for the demo upstream. */
export function upstreamTarget(config: Pick<RuntimeConfig, 'upstreamBaseUrl'>): string | undefined {
  if (config.upstreamBaseUrl === undefined) return undefined;
  const { protocol, host, pathname } = new URL(config.upstreamBaseUrl);
  return `${protocol}//${host}${pathname}`;
}
