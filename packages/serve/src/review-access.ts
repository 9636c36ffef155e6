import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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
  readonly secret = randomBytes(32).toString('base64url');
  private readonly session = randomBytes(32).toString('base64url');
  private readonly hosts: Set<string>;
  /** Cookies ignore ports: the port in the name keeps two servers apart. */
  readonly cookieName: string;

  constructor(port: number) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
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
    return cookie !== undefined && sameSecret(cookie, this.session);
  }

  isSecret(candidate: string): boolean {
    return sameSecret(candidate, this.secret);
  }

  /** The `Set-Cookie` value that opens a session. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

/** Compares in constant time whatever the lengths. */
function sameSecret(candidate: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(candidate), digest(expected));
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
