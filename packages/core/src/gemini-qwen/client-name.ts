import type { Implementation } from '@modelcontextprotocol/sdk/types.js';

/**
 * Both CLIs introduce themselves as `streamable-http-client`; Gemini CLI sends its own version,
 * Qwen Code a fixed `1.0.0` over a newer protocol — not its version, so none is shown for it
 * (`''`, as for any client that names no version). A best-effort label for people to read; the
 * engine decides by it only that a warning about that CLI's terminals has done its job.
 */
export function describeClient(
  info: Implementation | undefined,
  protocolVersion: string | undefined,
): { name: string; version: string } {
  const version = info?.version ?? '';
  if (info?.name !== 'streamable-http-client') return { name: info?.name ?? 'unknown', version };
  if (version === '1.0.0' && (protocolVersion ?? '') >= '2025-11-25') {
    return { name: 'Qwen Code', version: '' };
  }
  return { name: 'Gemini CLI', version };
}

/** A client for people: its name, then its version when it states one ("Qwen Code"). */
export function clientLabel({ name, version }: { name: string; version: string }): string {
  return version === '' ? name : `${name} ${version}`;
}
