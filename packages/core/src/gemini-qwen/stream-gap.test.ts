/**
 * A CLI's notification stream may end and come back (its MCP client reopens it about a second
 * later). When the engine stops in that gap (a window reloading), the rejection of the CLI's
 * pending diff must still reach it: the real clients never give up a diff on their own.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { RecordingEditor, Sandbox, startRealClient, waitUntil } from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';

/**
 * An HTTP proxy in front of the engine (it sets `Host` to the engine's), which can end the
 * CLIs' notification streams as a server closing them does.
 */
class StreamCutter {
  private readonly streams = new Set<{ up: http.ClientRequest; down: http.ServerResponse }>();
  private readonly server: http.Server;

  constructor(target: number) {
    this.server = http.createServer((request, response) => {
      const up = http.request(
        {
          host: '127.0.0.1',
          port: target,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: `127.0.0.1:${target}` },
        },
        (answer) => {
          response.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(response);
        },
      );
      up.on('error', () => response.destroy());
      request.pipe(up);
      if (request.method === 'GET') {
        const stream = { up, down: response };
        this.streams.add(stream);
        response.on('close', () => this.streams.delete(stream));
      }
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Ends every open stream, on the engine's side and on the client's. */
  endStreams(): void {
    for (const { up, down } of this.streams) {
      up.destroy();
      down.end();
    }
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

for (const kind of ['gemini', 'qwen'] as const) {
  describe(`${kind}: the engine stops while the CLI's stream is away`, () => {
    const engineSide = new Sandbox();
    const clientSide = new Sandbox();
    const cleanup: (() => unknown)[] = [];

    after(async () => {
      for (const step of cleanup.reverse()) await step();
      engineSide.remove();
      clientSide.remove();
    });

    it('the pending diff is still rejected', async () => {
      const editor = new RecordingEditor();
      const logged: string[] = [];
      const log = { info: (line: string) => logged.push(line), warn() {}, error() {} };
      const engine = await startEngine(engineSide, editor, { log });
      cleanup.push(() => engine.stop());
      const cutter = new StreamCutter(engine.port);
      const port = await cutter.listen();
      cleanup.push(() => cutter.close());
      await pointClientAt(engine.discoveryFiles, port);

      const client = await startRealClient({
        kind,
        cwd: engineSide.workspace,
        tmpDir: clientSide.tmpDir,
        qwenHome: clientSide.qwenHome,
        home: clientSide.home,
      });
      cleanup.push(() => client.kill());
      assert.equal((await client.connect()).status, 'connected');
      const diff = client.openDiff(path.join(engineSide.workspace, 'notes.txt'), 'new\n');
      await diff.opened;
      await waitUntil('the notification stream', () => cutter.streamCount > 0);

      cutter.endStreams();
      await waitUntil('the engine to see the stream end', () =>
        logged.some((line) => line.includes('stream ended')),
      );
      await engine.stop();
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    /** Copies of the engine's discovery files, in the client's sandbox, naming the proxy. */
    async function pointClientAt(files: readonly string[], port: number): Promise<void> {
      for (const file of files) {
        const data = JSON.parse(await readFile(file, 'utf8')) as { port: number };
        const name = path.basename(file).replace(String(data.port), String(port));
        const dir = file.endsWith('.lock')
          ? path.join(clientSide.qwenHome, 'ide')
          : path.join(clientSide.tmpDir, 'gemini', 'ide');
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, name), JSON.stringify({ ...data, port }));
      }
    }
  });
}
