import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { restartablePort } from './restartable-port.js';
import { killOnExit } from './kill-on-exit.js';

let available: boolean | undefined;
/** Whether redis-server and redis-cli (Debian's redis-tools) are on the PATH: a cluster needs both. */
export function redisClusterAvailable(): boolean {
  available ??= spawnSync('redis-server', ['--version']).status === 0 && spawnSync('redis-cli', ['--version']).status === 0;
  return available;
}

export interface RedisClusterOptions {
  readonly masters?: number;
  /** Replicas per master (a failover needs one). */
  readonly replicas?: number;
  /** `requirepass` and `masterauth` of every node. */
  readonly password?: string;
}

export interface ClusterNode {
  readonly port: number;
  readonly address: string;
}

/**
 * A private Redis Cluster: `redis-server --cluster-enabled yes` nodes on free ports (each with its own bus
 * port, so a port near the top of the range needs no port + 10000) in a temporary folder, joined by
 * `redis-cli --cluster create`; ready once every node says `cluster_state:ok` with all 16384 slots.
 */
export async function redisClusterProcess(options: RedisClusterOptions = {}) {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-test-'));
  const auth = options.password === undefined ? [] : ['--requirepass', options.password, '--masterauth', options.password];
  const nodes: (ClusterNode & { bus: number; child?: ChildProcess; running?: boolean })[] = [];
  for (let i = 0; i < masters * (1 + replicas); i += 1) {
    // Nodes are killed and started again on the same ports.
    const port = await restartablePort();
    nodes.push({ port, bus: await restartablePort(), address: `127.0.0.1:${port}` });
  }
  const killAll = () => {
    for (const node of nodes) node.child?.kill('SIGKILL');
  };
  const release = killOnExit(killAll);

  const admin = (port: number) =>
    new Redis({
      port,
      host: '127.0.0.1',
      password: options.password,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });

  /** Runs one command on one node through a connection of its own. */
  async function command(port: number, ...args: (string | number)[]): Promise<unknown> {
    const client = admin(port);
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.call(String(args[0]), ...args.slice(1).map(String));
    } finally {
      client.disconnect();
    }
  }

  async function poll(what: string, check: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
    const deadline = performance.now() + limitMs;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (performance.now() > deadline) throw new Error(`redis cluster: ${what} not within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function startNode(node: (typeof nodes)[number]): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(node.port),
        '--cluster-port',
        String(node.bus),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${node.port}.conf`),
        // A failed master is noticed in 2 s, not the default 15.
        '--cluster-node-timeout',
        '2000',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        // A replica's first sync starts at once, not after the 5 s a master waits for more replicas.
        '--repl-diskless-sync-delay',
        '0',
        ...auth,
      ],
      { stdio: 'ignore' },
    );
    node.child = child;
    node.running = true;
    child.once('exit', () => (node.running = false));
    return poll(`node ${node.port} answering`, async () => (await command(node.port, 'PING')) === 'PONG');
  }

  /** Whether every running node sees the whole cluster healthy and agrees on who serves the slots. */
  async function healthy(): Promise<boolean> {
    const running = nodes.filter((node) => node.running);
    const infos = await Promise.all(running.map((node) => command(node.port, 'CLUSTER', 'INFO') as Promise<string>));
    return infos.every((info) => info.includes('cluster_state:ok') && info.includes('cluster_slots_ok:16384'));
  }

  await Promise.all(nodes.map(startNode));
  const created = spawnSync(
    'redis-cli',
    [
      ...(options.password === undefined ? [] : ['--no-auth-warning', '-a', options.password]),
      '--cluster',
      'create',
      ...nodes.map((node) => node.address),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (created.status !== 0) {
    killAll();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  }
  await poll('cluster_state:ok on every node', healthy);
  // A replica still in its first full sync holds nothing yet: promoted then, it would lose every key.
  await poll('every replica in sync with its master', async () => {
    const infos = await Promise.all(nodes.map((node) => command(node.port, 'INFO', 'replication') as Promise<string>));
    const inSync = infos.filter(
      (info) => info.includes('role:slave') && info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0'),
    );
    return inSync.length === masters * replicas;
  });

  /** The node id and port of each master, by its `CLUSTER NODES` line. */
  async function mastersNow(): Promise<{ id: string; port: number; slots: string[] }[]> {
    const seenFrom = nodes.find((node) => node.running)!;
    const text = (await command(seenFrom.port, 'CLUSTER', 'NODES')) as string;
    return text
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields[2]?.includes('master') && !fields[2].includes('fail'))
      .map((fields) => ({ id: fields[0]!, port: Number(/:(\d+)@/.exec(fields[1]!)?.[1]), slots: fields.slice(8) }));
  }

  async function ownerOf(slot: number): Promise<{ id: string; port: number }> {
    for (const master of await mastersNow()) {
      for (const range of master.slots) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) return master;
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  return {
    nodes: nodes.map(({ port, address }): ClusterNode => ({ port, address })),
    /** phpredis's `session.save_path` seeds: `seed[]=host:port&…`. */
    seeds: nodes
      .slice(0, masters)
      .map((node) => `seed[]=${node.address}`)
      .join('&'),
    command,
    ownerOf,
    /** The slot of `key`, as the cluster computes it. */
    slotOf: async (key: string) => Number(await command(nodes[0]!.port, 'CLUSTER', 'KEYSLOT', key)),
    /**
     * Moves `slot` to another master as `redis-cli --cluster reshard` does, one step at a time so that
     * requests meet each state: IMPORTING/MIGRATING (ASK redirections), the keys MIGRATEd, then the
     * new owner announced to every master (MOVED). `between` runs after each step.
     */
    async migrateSlot(slot: number, between: () => Promise<void> = () => Promise.resolve()): Promise<number> {
      const source = await ownerOf(slot);
      const target = (await mastersNow()).find((master) => master.id !== source.id)!;
      await command(target.port, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id);
      await command(source.port, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id);
      await between();
      for (;;) {
        const keys = (await command(source.port, 'CLUSTER', 'GETKEYSINSLOT', slot, 100)) as string[];
        if (keys.length === 0) break;
        const authArgs = options.password === undefined ? [] : ['AUTH', options.password];
        await command(source.port, 'MIGRATE', '127.0.0.1', target.port, '', 0, 5_000, ...authArgs, 'KEYS', ...keys);
        await between();
      }
      for (const master of await mastersNow()) await command(master.port, 'CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
      await between();
      return target.port;
    },
    /** Kills one node (SIGKILL), as a crash would. */
    async kill(port: number): Promise<void> {
      const node = nodes.find((candidate) => candidate.port === port);
      if (!node?.child || !node.running) return;
      const exited = once(node.child, 'exit');
      node.child.kill('SIGKILL');
      await exited;
    },
    /** Starts a killed node again, with its cluster config (its slots) and no data, as a crashed node without persistence comes back. */
    async restart(port: number): Promise<void> {
      const node = nodes.find((candidate) => candidate.port === port);
      if (!node || node.running) return;
      await startNode(node);
    },
    /** Resolves once every running node sees the cluster healthy again (after a failover, say). */
    healthy: () => poll('cluster_state:ok on every node', healthy),
    async stop(): Promise<void> {
      release();
      await Promise.all(
        nodes.map(async (node) => {
          if (!node.child || !node.running) return;
          const exited = once(node.child, 'exit');
          node.child.kill('SIGKILL');
          await exited;
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RedisClusterProcess = Awaited<ReturnType<typeof redisClusterProcess>>;
