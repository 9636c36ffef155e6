import { existsSync } from 'node:fs';

/**
 * Gemini CLI in a container (docs/clients.md, "Discovery"): when `/.dockerenv` or `/run/.containerenv` exists it
 * dials `host.docker.internal` instead of 127.0.0.1, unless one of a few variables says that the
 * IDE runs beside it. Qwen Code tries 127.0.0.1 first and needs nothing.
 */

/** The files whose presence makes Gemini CLI believe it runs in a container. */
export const CONTAINER_MARKERS: readonly string[] = ['/.dockerenv', '/run/.containerenv'];

/** Any of these, set, keeps Gemini CLI on 127.0.0.1 in a container. */
export const CONTAINER_LOOPBACK_VARIABLES: readonly string[] = [
  'SSH_CONNECTION',
  'VSCODE_REMOTE_CONTAINERS_SESSION',
  'REMOTE_CONTAINERS',
];

/**
 * The one Tandem sets, to terminals of an editor in the same container: it claims nothing else
 * (`SSH_CONNECTION` would tell every program the session came over SSH).
 */
export const CONTAINER_LOOPBACK_VARIABLE = 'REMOTE_CONTAINERS';

export interface ContainerFacts {
  /** The marker file that exists, if any: Gemini CLI then believes it runs in a container. */
  marker?: string;
  /** The variable already set that keeps Gemini CLI on 127.0.0.1, if any. */
  localOverride?: string;
}

/** What Gemini CLI started with this environment, on this machine, decides about containers. */
export function containerFacts(
  env: NodeJS.ProcessEnv,
  exists: (path: string) => boolean = existsSync,
): ContainerFacts {
  const marker = CONTAINER_MARKERS.find((path) => exists(path));
  const localOverride = CONTAINER_LOOPBACK_VARIABLES.find((name) => env[name]);
  return { ...(marker && { marker }), ...(localOverride && { localOverride }) };
}

/** The host Gemini CLI dials: `host.docker.internal` in a container without an override. */
export function geminiHost(facts: ContainerFacts): '127.0.0.1' | 'host.docker.internal' {
  return facts.marker && !facts.localOverride ? 'host.docker.internal' : '127.0.0.1';
}

/**
 * For a terminal that runs in the same container as the companion: the variable that makes
 * Gemini CLI dial 127.0.0.1, where the companion listens. Empty outside a container, and when
 * an override is set already.
 */
export function containerTerminalVariables(facts: ContainerFacts): Record<string, string> {
  return geminiHost(facts) === 'host.docker.internal'
    ? { [CONTAINER_LOOPBACK_VARIABLE]: 'true' }
    : {};
}
