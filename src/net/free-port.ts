import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a server another process (or a later
 * step) is about to start.
 *
 * Not the OS's port 0: that comes from the ephemeral range, which every outgoing connection on the
 * machine draws from too, so between this answer and the child's `listen` a client socket can take
 * it ("Port … already in use"). A random port below the ephemeral range is only ever taken by a
 * listener; it is checked by binding it, and another is tried when it is not free.
 */
export async function freePort(): Promise<number> {
  const range = listenerRange();
  if (range) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = range.low + Math.floor(Math.random() * (range.high - range.low + 1));
      if (await canListen(port)) return port;
    }
  }
  return osPickedPort();
}

/** Ports below the ephemeral range and above the well-known services: [10000, ephemeral low − 1]. */
function listenerRange(): { low: number; high: number } | null {
  const LOW = 10_000;
  let ephemeralLow: number;
  try {
    // Linux; elsewhere the OS's choice below is all we have.
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return null;
  }
  if (!Number.isInteger(ephemeralLow) || ephemeralLow - 1 - LOW < 1_000) return null;
  return { low: LOW, high: ephemeralLow - 1 };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function osPickedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
