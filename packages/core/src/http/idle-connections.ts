import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes a connection that has had no request under way for `idleMs`, as Node's own keep-alive
 * timeout does, but only after the event loop has read what arrived meanwhile. Node's timer
 * runs before the loop reads the sockets: a process held up for longer than the timeout (a
 * loaded machine, a stopped process) would cut connections that already carry the client's
 * next request, and the client would see its request fail.
 */
export function closeIdleConnections(server: Server, idleMs: number): void {
  server.keepAliveTimeout = 0;
  const underWay = new WeakMap<Socket, number>();
  const idleTimers = new WeakMap<Socket, NodeJS.Timeout>();

  const waitForRequest = (socket: Socket) => {
    const readBefore = socket.bytesRead;
    const timer = setTimeout(() => {
      // A turn of the loop first: what the client sent while this process was held up is read.
      setImmediate(() => {
        if (socket.destroyed || (underWay.get(socket) ?? 0) > 0) return;
        if (socket.bytesRead === readBefore) socket.destroy();
        else waitForRequest(socket);
      });
    }, idleMs);
    idleTimers.set(socket, timer.unref());
  };

  server.on('connection', (socket: Socket) => {
    underWay.set(socket, 0);
    waitForRequest(socket);
    socket.once('close', () => clearTimeout(idleTimers.get(socket)));
  });
  server.on('request', (request, response) => {
    const socket: Socket = request.socket;
    clearTimeout(idleTimers.get(socket));
    underWay.set(socket, (underWay.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (underWay.get(socket) ?? 1) - 1;
      underWay.set(socket, left);
      if (left === 0 && !socket.destroyed) waitForRequest(socket);
    });
  });
}
