import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '@cotizaciones/core';
import { ARCHIVE_QUOTATION } from '@cotizaciones/core/testing';
import { startApp } from './support/app.js';
import { form } from './support/service.js';

// The "add an operation" recipe (docs/recipes.md), proved: an operation that exists only in tests,
// written as a catalog entry and nothing else, is served by the app at its path, sent upstream,
// audited, counted by its name and described in the OpenAPI document.

describe('an operation added to the catalog', () => {
  it('is served end to end from its entry alone: the route, the upstream call, the audit entry, the metric and the OpenAPI path', async () => {
    const app = await startApp({ operations: [...OPERATIONS, ARCHIVE_QUOTATION] });
    try {
      const cookie = await app.signIn('7');
      const response = await fetch(`${app.url}${ARCHIVE_QUOTATION.webPath}`, {
        method: 'POST',
        body: form({ id: '12', reason: 'duplicada' }),
        headers: { cookie },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });

      expect(app.upstream.calls).toEqual([
        expect.objectContaining({ path: '/api/cotizaciones/archive', payload: { id: '12', reason: 'duplicada' }, token: 'tok' }),
      ]);
      expect(app.activityLog.entries).toEqual([
        expect.objectContaining({
          eventKey: 'cotizaciones.archive',
          description: 'Archivó la cotización #12',
          entityType: 'cotizacion',
          entityId: 12n,
          details: { reason: 'duplicada' },
          userId: '7',
        }),
      ]);

      app.upstream.respondWith(() => ({ json: { ok: false } }));
      const refused = await fetch(`${app.url}${ARCHIVE_QUOTATION.webPath}`, {
        method: 'POST',
        body: form({ id: '13' }),
        headers: { cookie },
      });
      expect(await refused.json()).toEqual({ ok: false, msg: 'No se pudo archivar la cotización.' });

      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toContain('http_requests_total{endpoint="archive_cotizacion",method="POST",outcome="ok"} 1');
      const openApi = (await (await fetch(`${app.url}/openapi.json`)).json()) as {
        paths: Record<string, { post: { operationId: string } }>;
      };
      expect(openApi.paths[ARCHIVE_QUOTATION.webPath]?.post.operationId).toBe('archive_cotizacion');
    } finally {
      app.close();
    }
  });
});
