import type { IncomingHttpHeaders } from 'node:http';
import { loopbackHosts } from './loopback.js';
import { secretMatches } from './secret.js';

/** Why a request was refused before anything of its body was read. */
export interface Refusal {
  status: 401 | 403 | 404 | 405 | 413;
  message: string;
}

export interface GuardOptions {
  /** The port the listener is bound to. */
  port: number;
  token: string;
  /** Also accept `Host: host.docker.internal:<port>` (a CLI inside a container). */
  allowContainerHost: boolean;
  maxBodyBytes: number;
  /** Where the client puts the token (default: `Authorization: Bearer <token>`). */
  tokenOf?: (headers: IncomingHttpHeaders) => string | undefined;
}

/** The token of `Authorization: Bearer <token>`, as Gemini CLI and Qwen Code send it. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return /^Bearer (\S+)$/i.exec(headers.authorization ?? '')?.[1];
}

/** The `Host` values a loopback listener on `port` may be reached by. */
export function allowedHosts(port: number, allowContainerHost: boolean): string[] {
  return loopbackHosts(port, allowContainerHost ? ['host.docker.internal'] : []);
}

/**
 * Checks a request's headers, in the order that leaks least: `Host` (DNS rebinding), then
 * `Origin` (browsers), then the token, then the declared body size. Returns the
 * refusal, or `undefined` when the request may go on.
 */
export function checkRequest(
  headers: IncomingHttpHeaders,
  options: GuardOptions,
): Refusal | undefined {
  const host = headers.host?.toLowerCase();
  if (!host || !allowedHosts(options.port, options.allowContainerHost).includes(host)) {
    return { status: 403, message: `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed` };
  }
  if (headers.origin !== undefined) {
    return { status: 403, message: 'Forbidden: requests from web pages are not allowed' };
  }
  const token = (options.tokenOf ?? bearerToken)(headers);
  if (!token || !secretMatches(token, options.token)) {
    return { status: 401, message: 'Unauthorized: a valid token is required' };
  }
  const declared = Number(headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) {
    return { status: 413, message: tooLarge(options.maxBodyBytes) };
  }
  return undefined;
}

export function tooLarge(maxBodyBytes: number): string {
  return `Payload Too Large: the request body exceeds ${maxBodyBytes} bytes`;
}
