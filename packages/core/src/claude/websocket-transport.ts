import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RawData, WebSocket } from 'ws';

/**
 * MCP over one WebSocket, as Claude Code speaks it: one JSON-RPC message a text frame. A frame
 * that is not a JSON-RPC message is answered with a parse error (id `null`), never dropped in
 * silence, and the connection goes on.
 */
export class WebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly socket: WebSocket) {}

  start(): Promise<void> {
    this.socket.on('message', (data, isBinary) => this.received(data, isBinary));
    this.socket.on('close', () => this.onclose?.());
    this.socket.on('error', (error) => this.onerror?.(error));
    // Closed before anyone listened: it is told all the same.
    if (this.socket.readyState === this.socket.CLOSED) queueMicrotask(() => this.onclose?.());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== this.socket.OPEN) {
        return reject(new Error('the WebSocket is closed'));
      }
      this.socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    if (this.socket.readyState === this.socket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close(1000);
      // A peer that never answers the close handshake is cut.
      setTimeout(() => this.socket.terminate(), 1000).unref();
    });
  }

  private received(data: RawData, isBinary: boolean): void {
    let message: JSONRPCMessage;
    try {
      if (isBinary) throw new Error('binary frame');
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString();
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch {
      const error = { code: -32700, message: 'Parse error: not a JSON-RPC message' };
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
      return;
    }
    this.onmessage?.(message);
  }
}
