import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const jquery = readFileSync(createRequire(import.meta.url).resolve('jquery/dist/jquery.min.js'));

/** The test page: the real jQuery, and the ways the front end posts to the endpoints. */
export const TEST_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><script src="/__test/jquery.js"></script></head>
<body>
<h1>cotizaciones</h1>
<form id="item-form" method="post" action="/cotizaciones/api/update_cot_item.php">
  <input name="id" value="44"><input name="delete" value=""><button type="submit">Eliminar</button>
</form>
<script>
  window.signIn = (id) => fetch('/dev/login', { method: 'POST', body: new URLSearchParams({ id }) }).then((r) => r.json());
  window.viaJqueryPost = (url, data) => new Promise((resolve) => $.post(url, data, resolve, 'json').fail((x) => resolve({ failed: x.status })));
  window.viaJqueryFormData = (url, pairs) => new Promise((resolve) => {
    const data = new FormData();
    for (const [k, v] of pairs) data.append(k, v);
    $.ajax({ url, type: 'POST', data, processData: false, contentType: false, dataType: 'json' }).done(resolve).fail((x) => resolve({ failed: x.status }));
  });
  window.viaFetchParams = (url, pairs) => fetch(url, { method: 'POST', body: new URLSearchParams(pairs) }).then((r) => r.json());
  window.viaFetchFormData = (url, pairs) => {
    const data = new FormData();
    for (const [k, v] of pairs) data.append(k, v);
    return fetch(url, { method: 'POST', body: data }).then((r) => r.json());
  };
</script>
</body></html>`;

/** A page on another site that posts a form to the service. */
export function attackerPage(target: string): string {
  return `<!doctype html><html><body>
<form id="evil" method="post" action="${target}/cotizaciones/api/update_cot_item.php">
  <input name="id" value="66"><input name="delete" value=""><button type="submit">Ganaste</button>
</form></body></html>`;
}

/** The service's own handler, with the test page and jQuery served beside it (same origin). */
export function withTestPage(app: RequestListener): RequestListener {
  return (req, res) => {
    if (req.url === '/__test/page.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(TEST_PAGE);
      return;
    }
    if (req.url === '/__test/jquery.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(jquery);
      return;
    }
    app(req, res);
  };
}

export async function listenOn(handler: RequestListener, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.listen(0, host);
  await once(server, 'listening');
  return { server, url: `http://${host === '127.0.0.1' ? '127.0.0.1' : 'localhost'}:${(server.address() as AddressInfo).port}` };
}
