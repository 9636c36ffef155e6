import type { ConnectedClient, DiffRequest, EditorPort } from '@tandem/core';
import { editorReplies } from './bridge-protocol.js';
import type { JsonLinesPeer } from './json-lines-peer.js';

/** A diff view may wait on the user's editor (a prompt, a slow plugin): be patient, not forever. */
const OPEN_TIMEOUT_MS = 60_000;
const CLOSE_TIMEOUT_MS = 15_000;

/** The engine's `EditorPort`, spoken to an editor adapter over bridge protocol v1. */
export class BridgePort implements EditorPort {
  constructor(private readonly peer: JsonLinesPeer) {}

  async showDiff(diff: DiffRequest): Promise<void> {
    const { id, filePath, oldContent, newContent, client } = diff;
    await this.peer.request(
      'diff/open',
      {
        id,
        filePath,
        oldContent,
        newContent,
        client: { name: client.name, version: client.version },
      },
      editorReplies['diff/open'],
      OPEN_TIMEOUT_MS,
    );
  }

  async closeDiff(id: string): Promise<string> {
    const reply = await this.peer.request(
      'diff/close',
      { id },
      editorReplies['diff/close'],
      CLOSE_TIMEOUT_MS,
    );
    return reply.content;
  }

  clientsChanged(clients: ConnectedClient[]): void {
    this.peer.notify('status', {
      clients: clients.map(({ name, version, sessionId }) => ({ name, version, sessionId })),
    });
  }
}
