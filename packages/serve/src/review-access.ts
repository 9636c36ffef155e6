import type { IncomingMessage } from 'node:http';
import { loopbackHosts, newSecret, secretMatches } from '@tandem/core';

/** Why a request may not go on, as an HTTP status and a sentence for the user. */
export interface Refusal {
  status: number;
  message: string;
}

/**
 * Who may use the review server: a browser on this machine (or at the end of an SSH tunnel to
 * it) that was given the secret once. The secret trades for a session cookie; state changes
 * must also come from the page's own origin.
 */
export class ReviewAccess {
  /** What the printed URL carries. */
  readonly secret = newSecret();
  private readonly session = newSecret();
  private readonly hosts: Set<string>;
  /** Cookies ignore ports: the port in the name keeps two servers apart. */
  readonly cookieName: string;

  constructor(port: number) {
    this.hosts = new Set(loopbackHosts(port));
    this.cookieName = `tandem-review-${port}`;
  }

  /** A loopback name with this server's port, so that DNS rebinding finds nothing. */
  checkHost(request: IncomingMessage): Refusal | undefined {
    const host = request.headers.host?.toLowerCase();
    if (host && this.hosts.has(host)) return undefined;
    return {
      status: 403,
      message: 'This address is not allowed. Open the URL that tandem serve printed.',
    };
  }

  /**
   * A foreign `Origin` is refused on every request; a missing one too when the request changes
   * state. The page's own origin is the one its `Host` names.
   */
  checkOrigin(request: IncomingMessage, changesState: boolean): Refusal | undefined {
    const origin = request.headers.origin;
    if (origin === undefined && !changesState) return undefined;
    if (origin === `http://${request.headers.host?.toLowerCase()}`) return undefined;
    return { status: 403, message: 'Requests from other origins are refused.' };
  }

  hasSession(request: IncomingMessage): boolean {
    const cookie = readCookie(request.headers.cookie, this.cookieName);
    return cookie !== undefined && secretMatches(cookie, this.session);
  }

  isSecret(candidate: string): boolean {
    return secretMatches(candidate, this.secret);
  }

  /** The `Set-Cookie` value that opens a session. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      return part.slice(separator + 1).trim();
    }
  }
  return undefined;
}
