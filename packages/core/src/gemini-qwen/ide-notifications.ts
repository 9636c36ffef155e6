import english from 'zod/v4/locales/en.js';
import * as z from 'zod/mini';
import type { EditorContext } from '../context/context-tracker.js';
import type { DiffOutcome } from '../diffs/diff-coordinator.js';

/**
 * The `ide/*` notifications, with schemas as strict as the clients' own (docs/clients.md, "Transport" and "Notifications and context"): a
 * notification that fails the client's schema disconnects the CLI until the user types
 * `/ide enable`, so every one is checked here before it is sent.
 */

// zod's small build, which carries no messages of its own: these reach logs and `tandem check`.
// (The full build, which the MCP SDK loads with the first CLI, is not needed to check these.)
z.config(english());

const lineOrCharacter = z.int().check(z.minimum(1));
const fileSchema = z.object({
  path: z.string(),
  timestamp: z.number(),
  isActive: z.optional(z.boolean()),
  selectedText: z.optional(z.string()),
  cursor: z.optional(z.object({ line: lineOrCharacter, character: lineOrCharacter })),
});

export const ideContextSchema = z.object({
  workspaceState: z.optional(
    z.object({ openFiles: z.optional(z.array(fileSchema)), isTrusted: z.optional(z.boolean()) }),
  ),
});

const schemas = {
  'ide/contextUpdate': ideContextSchema,
  'ide/diffAccepted': z.object({ filePath: z.string(), content: z.string() }),
  'ide/diffRejected': z.object({ filePath: z.string() }),
};

export type OpenFile = z.infer<typeof fileSchema>;
export type IdeContext = z.infer<typeof ideContextSchema>;

export type IdeNotification =
  | { method: 'ide/contextUpdate'; params: IdeContext }
  | { method: 'ide/diffAccepted'; params: { filePath: string; content: string } }
  | { method: 'ide/diffRejected'; params: { filePath: string } };

/** Returns why `notification` would fail the client's schema, or `undefined` when it is valid. */
export function invalidity(notification: IdeNotification): string | undefined {
  const result = schemas[notification.method].safeParse(notification.params);
  if (result.success) return undefined;
  return `${notification.method}: ${z.prettifyError(result.error).replaceAll('\n', ' ')}`;
}

/** The context update a session receives: the editor's, without what only Claude Code takes. */
export function contextNotification(context: EditorContext): IdeNotification {
  const { openFiles, ...state } = context.workspaceState;
  const files = openFiles.map(({ anchor: _anchor, ...file }) => file);
  return {
    method: 'ide/contextUpdate',
    params: { workspaceState: { ...state, openFiles: files } },
  };
}

/** The notification that tells a CLI how its diff ended. */
export function outcomeNotification(outcome: DiffOutcome): IdeNotification {
  return outcome.outcome === 'accepted'
    ? {
        method: 'ide/diffAccepted',
        params: { filePath: outcome.filePath, content: outcome.content },
      }
    : { method: 'ide/diffRejected', params: { filePath: outcome.filePath } };
}
