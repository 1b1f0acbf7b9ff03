import { Agent } from 'node:http';
import got from 'got';
import { Pool } from 'undici';

/** A reference server's upstream call: POST a JSON body, the answer's JSON. */
export type ReferencePost = (path: string, headers: Record<string, string>, body: string) => Promise<unknown>;

/** undici, one keep-alive pool, as the references use it. */
export function undiciPost(baseUrl: string): ReferencePost {
  const pool = new Pool(baseUrl, { connections: 256, keepAliveTimeout: 4_000 });
  return async (path, headers, body) => (await pool.request({ method: 'POST', path, headers, body })).body.json();
}

/** got as a minimal service would call it: one keep-alive agent, no retries, the JSON body. */
export function gotPost(baseUrl: string): ReferencePost {
  const client = got.extend({
    prefixUrl: baseUrl,
    agent: { http: new Agent({ keepAlive: true, maxSockets: 256 }) },
    retry: { limit: 0 },
    throwHttpErrors: false,
  });
  return (path, headers, body) => client.post(path.replace(/^\//, ''), { headers, body }).json();
}

export const referencePost = (client: string | undefined, baseUrl: string): ReferencePost =>
  client === 'got' ? gotPost(baseUrl) : undiciPost(baseUrl);
