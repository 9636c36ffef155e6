import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Refusal } from '../diffs/diff-coordinator.js';

/** `openDiff` returns at once: empty on success, the reason as `isError` otherwise. */
export function openDiffResult(result: { ok: true } | Refusal): CallToolResult {
  return result.ok ? { content: [] } : failure(result.reason);
}

/**
 * `closeDiff` returns one text part holding `{"content": …}` as JSON: the clients read
 * `JSON.parse(text).content`, and plain text would lose the user's edits (docs/clients.md, "Tools").
 */
export function closeDiffResult(result: { ok: true; content: string | null } | Refusal) {
  if (!result.ok) return failure(result.reason);
  const text = JSON.stringify({ content: result.content });
  return { content: [{ type: 'text', text }] } satisfies CallToolResult;
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
