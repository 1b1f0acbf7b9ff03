import { readFileSync } from 'node:fs';

const SYN_RECV = 0x03;
const ESTABLISHED = 0x01;

/**
 * The client ports of the connections to local `port` that the kernel holds and no process
 * has accepted yet: handshakes still open (SYN_RECV: the client may already think it is
 * connected, its last ACK dropped by a full accept queue) and completed ones waiting in the
 * queue (ESTABLISHED with no socket inode). From Linux's /proc/net/tcp and tcp6; undefined
 * where neither can be read (not Linux).
 */
export function pendingConnections(port: number): number[] | undefined {
  let readable = false;
  const pending: number[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    readable = true;
    // "  sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid  timeout inode"
    for (const line of table.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const [, local, remote, state, , , , , , inode] = fields as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      if (portOf(local) !== port) continue;
      const st = Number.parseInt(state, 16);
      if (st === SYN_RECV || (st === ESTABLISHED && inode === '0')) pending.push(portOf(remote));
    }
  }
  return readable ? pending : undefined;
}

/** "0100007F:1F90" → 8080. */
const portOf = (address: string) => Number.parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
