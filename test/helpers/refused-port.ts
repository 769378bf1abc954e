// A loopback port that refuses connections for a whole test. A port bound and closed again is free for any other
// test file's listen(0) meanwhile (a true race, which a run of several seconds under load can meet); the kernel hands
// out listen(0) ports only from its ephemeral range (32768-60999 by default), and only root may listen under 1024.
import net from 'node:net';

/** The lowest port under 1024 that refuses a connection on 127.0.0.1 now: nothing the suite starts listens there. */
export async function refusedPort(): Promise<number> {
  for (let port = 1; port < 1024; port++) if (await refuses(port)) return port;
  throw new Error('every port under 1024 on 127.0.0.1 answers or hangs: no port to refuse connections');
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (refused: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), 5000);
    socket.once('connect', () => done(false));
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED'));
  });
}
