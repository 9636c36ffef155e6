import type { IncomingMessage } from 'node:http';
import { loopbackHosts, newSecret, secretMatches } from '@tandem/core';

/** Why a request may not go on, as an HTTP status and a sentence for the user. */
export interface Refusal {
  status: number;
  message: string;
}

/** The header the page proves itself with on every API request. */
export const TOKEN_HEADER = 'x-tandem-token';
/** The header that carries the URL's secret when the page trades it for a token. */
export const SECRET_HEADER = 'x-tandem-secret';
/** Page tokens kept at once (tabs, browsers); the oldest is forgotten first. */
const MAX_PAGE_TOKENS = 16;

/**
 * Who may use the review server: a page that was given the secret of the printed URL. The
 * secret travels in the URL's fragment, which browsers never send to a server (and so never to
 * another program on 127.0.0.1); the page trades it, once, for a page token that it keeps in
 * its own tab (`sessionStorage`, readable by its own origin alone) and sends in a header on
 * every request. No cookie: browsers send a 127.0.0.1 cookie to every port of 127.0.0.1.
 * Each secret opens one page: a URL seen later (in `ps`, in a history) opens nothing.
 */
export class ReviewAccess {
  private currentSecret = newSecret();
  private readonly tokens: string[] = [];
  private readonly hosts: Set<string>;

  constructor(port: number) {
    this.hosts = new Set(loopbackHosts(port));
  }

  /** The secret the next URL carries. */
  get secret(): string {
    return this.currentSecret;
  }

  /** A loopback name with this server's port, so that DNS rebinding finds nothing. */
  checkHost(request: IncomingMessage): Refusal | undefined {
    const host = request.headers.host?.toLowerCase();
    if (host && this.hosts.has(host)) return undefined;
    return {
      status: 403,
      message:
        'This address is not allowed. Open the URL that tandem serve printed or tandem lsp showed.',
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

  /**
   * Trades the URL's secret for a new page token, and replaces the secret: it opens one page.
   * `undefined` when `candidate` is not the current secret.
   */
  trade(candidate: string): string | undefined {
    if (!secretMatches(candidate, this.currentSecret)) return undefined;
    this.currentSecret = newSecret();
    const token = newSecret();
    this.tokens.push(token);
    if (this.tokens.length > MAX_PAGE_TOKENS) this.tokens.shift();
    return token;
  }

  /** Whether `candidate` is the token of a page that traded a secret. */
  isPageToken(candidate: string | undefined): boolean {
    if (!candidate) return false;
    // Every token compared, in constant time each, so the answer does not tell which matched.
    return this.tokens.reduce((found, token) => secretMatches(candidate, token) || found, false);
  }
}
