import type { ReviewEvent } from '@tandem/serve/review-protocol';

// Every address is relative to the page, so the page works under any host name and port
// (an SSH tunnel, a proxy).

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'signed-out';

/** What became of a request about a diff; `refused` carries the engine's reason. */
export type AnswerResult = 'done' | 'gone' | 'failed' | { refused: string };

/** Listens to the review server's event stream, and opens it again after a failure. */
export class ReviewEvents {
  private source: EventSource | undefined;

  constructor(
    private readonly onEvent: (event: ReviewEvent) => void,
    private readonly onState: (state: ConnectionState) => void,
  ) {}

  start(): void {
    this.onState('connecting');
    const source = new EventSource('api/events');
    this.source = source;
    source.onopen = () => this.onState('live');
    source.onmessage = (message) => this.onEvent(JSON.parse(message.data) as ReviewEvent);
    source.onerror = () => {
      // The browser retries a dropped stream by itself; a refused one stays closed.
      if (source.readyState !== EventSource.CLOSED) return this.onState('reconnecting');
      void this.retryAfterRefusal();
    };
  }

  private async retryAfterRefusal(): Promise<void> {
    const probe = await fetch('api/state', { cache: 'no-store' }).catch(() => undefined);
    if (probe?.status === 401) return this.onState('signed-out');
    this.onState('reconnecting');
    setTimeout(() => this.start(), 2000);
  }
}

export function saveDraft(id: string, content: string): Promise<AnswerResult> {
  return send(id, 'draft', 'PUT', { content });
}

export function accept(id: string, content: string): Promise<AnswerResult> {
  return send(id, 'accept', 'POST', { content });
}

export function reject(id: string): Promise<AnswerResult> {
  return send(id, 'reject', 'POST', {});
}

async function send(
  id: string,
  action: string,
  method: string,
  body: object,
): Promise<AnswerResult> {
  const json = JSON.stringify(body);
  try {
    const response = await fetch(`api/reviews/${encodeURIComponent(id)}/${action}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: json,
      // A draft saved as the tab closes still arrives (browsers allow 64 KiB of such bodies).
      keepalive: action === 'draft' && new Blob([json]).size < 60_000,
    });
    if (response.ok) return 'done';
    if (response.status === 409) return 'gone';
    if (response.status === 422) return { refused: await refusalMessage(response) };
    return 'failed';
  } catch {
    return 'failed';
  }
}

async function refusalMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
  return typeof body?.error === 'string' ? body.error : 'Refused.';
}
