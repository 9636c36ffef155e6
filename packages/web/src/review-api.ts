import type { ReviewEvent } from './review-protocol.js';

// Every address is relative to the page, so the page works under any host name and port
// (an SSH tunnel, a proxy).

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'signed-out' | 'stopped';

/** What became of a request about a diff; `refused` carries the engine's reason. */
export type AnswerResult = 'done' | 'gone' | 'failed' | { refused: string };

/** Where the tab keeps its token across reloads: readable by this origin (and port) alone. */
const TOKEN_KEY = 'tandem-page-token';

/**
 * Signs the page in: the secret in the URL's fragment (never sent to any server by the browser)
 * is traded once for this tab's token, and taken out of the address bar and history. A reload
 * finds the token in the tab's `sessionStorage`. `undefined` when neither is there.
 */
export async function signIn(): Promise<ReviewApi | undefined> {
  const secret = location.hash.slice(1);
  if (secret) {
    history.replaceState(null, '', location.pathname + location.search);
    const response = await fetch('api/session', {
      method: 'POST',
      headers: { 'x-tandem-secret': secret },
      cache: 'no-store',
    }).catch(() => undefined);
    const body = (await response?.json().catch(() => undefined)) as { token?: unknown } | undefined;
    if (response?.ok && typeof body?.token === 'string') {
      sessionStorage.setItem(TOKEN_KEY, body.token);
      return new ReviewApi(body.token);
    }
  }
  const kept = sessionStorage.getItem(TOKEN_KEY);
  return kept ? new ReviewApi(kept) : undefined;
}

/** The review server's API, as this signed-in page: its token goes with every request. */
export class ReviewApi {
  constructor(private readonly token: string) {}

  /** Listens to the event stream, opening it again after a failure. */
  listen(onEvent: (event: ReviewEvent) => void, onState: (state: ConnectionState) => void): void {
    onState('connecting');
    // EventSource sends no headers: the token goes in the stream's address.
    const source = new EventSource(`api/events?token=${encodeURIComponent(this.token)}`);
    source.onopen = () => onState('live');
    source.onmessage = (message) => {
      const event = JSON.parse(message.data) as ReviewEvent;
      onEvent(event);
      // The server said it stops: it will not come back at this address.
      if (event.type === 'stopped') onState('stopped');
    };
    source.onerror = () => {
      // The browser retries a dropped stream by itself; a refused one stays closed.
      if (source.readyState !== EventSource.CLOSED) {
        onState('reconnecting');
        return void this.checkServer(source, onState);
      }
      void this.retryAfterRefusal(onEvent, onState);
    };
  }

  /**
   * While the browser retries: a server that does not answer at all has stopped (a restarted
   * one listens elsewhere, with a new secret), and the page says so instead of waiting forever.
   */
  private async checkServer(
    source: EventSource,
    onState: (state: ConnectionState) => void,
  ): Promise<void> {
    const probe = await this.probeServer();
    if (source.readyState !== EventSource.OPEN && !probe) onState('stopped');
  }

  /** The server's answer to a request for its state, or undefined when none came. */
  private probeServer(): Promise<Response | undefined> {
    return fetch('api/state', {
      cache: 'no-store',
      headers: { 'x-tandem-token': this.token },
    }).catch(() => undefined);
  }

  saveDraft(id: string, content: string): Promise<AnswerResult> {
    return this.send(id, 'draft', 'PUT', { content });
  }

  accept(id: string, content: string): Promise<AnswerResult> {
    return this.send(id, 'accept', 'POST', { content });
  }

  reject(id: string): Promise<AnswerResult> {
    return this.send(id, 'reject', 'POST', {});
  }

  private async retryAfterRefusal(
    onEvent: (event: ReviewEvent) => void,
    onState: (state: ConnectionState) => void,
  ): Promise<void> {
    const probe = await this.probeServer();
    if (probe?.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      return onState('signed-out');
    }
    onState(probe ? 'reconnecting' : 'stopped');
    setTimeout(() => this.listen(onEvent, onState), 2000);
  }

  private async send(
    id: string,
    action: string,
    method: string,
    body: object,
  ): Promise<AnswerResult> {
    const json = JSON.stringify(body);
    try {
      const response = await fetch(`api/reviews/${encodeURIComponent(id)}/${action}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-tandem-token': this.token },
        body: json,
        // A draft saved as the tab closes still arrives (browsers allow 64 KiB of such bodies).
        keepalive: action === 'draft' && new Blob([json]).size < 60_000,
      });
      if (response.ok) return 'done';
      if (response.status === 409) return 'gone';
      // 422: the engine refused the answer; 413: larger than the server takes. Both say why.
      if (response.status === 422 || response.status === 413) {
        return { refused: await refusalMessage(response) };
      }
      return 'failed';
    } catch {
      return 'failed';
    }
  }
}

async function refusalMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
  return typeof body?.error === 'string' ? body.error : 'Refused.';
}
