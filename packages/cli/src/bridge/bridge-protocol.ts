import { z } from 'zod';

/**
 * Bridge protocol version 1: the messages between an editor adapter and `tandem bridge`
 * (docs/bridge-protocol.md). Paths are absolute; lines and characters are 1-based.
 */
export const PROTOCOL_VERSION = 1;

const absolutePath = z
  .string()
  .refine((path) => path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path), {
    message: 'must be an absolute path',
  });
const position = z.number().int().min(1);

/** Editor → sidecar requests. */
export const editorRequests = {
  initialize: z.object({
    protocol: z.number().int(),
    editor: z.object({
      name: z.string().min(1),
      displayName: z.string().min(1),
      version: z.string().optional(),
      pid: z.number().int().positive(),
    }),
    workspaceFolders: z.array(absolutePath),
    isTrusted: z.boolean().optional(),
    discovery: z
      .object({
        gemini: z.boolean().optional(),
        qwenLock: z.boolean().optional(),
        qwenLegacy: z.boolean().optional(),
      })
      .optional(),
    allowContainerHost: z.boolean().optional(),
  }),
  shutdown: z.object({}).passthrough(),
};

/** Editor → sidecar notifications. */
export const editorNotifications = {
  'workspace/changed': z.object({
    workspaceFolders: z.array(absolutePath),
    isTrusted: z.boolean().optional(),
  }),
  'file/opened': z.object({ path: absolutePath }),
  'file/closed': z.object({ path: absolutePath }),
  'file/focused': z.object({ path: absolutePath }),
  'cursor/changed': z.object({
    path: absolutePath,
    line: position,
    character: position,
    selectedText: z.string().optional(),
  }),
  'diff/accepted': z.object({ id: z.string(), content: z.string() }),
  'diff/rejected': z.object({ id: z.string() }),
};

/** Replies the sidecar expects from the editor. */
export const editorReplies = {
  'diff/open': z.unknown(),
  'diff/close': z.object({ content: z.string() }),
};

export type InitializeParams = z.infer<typeof editorRequests.initialize>;
export type EditorNotification = keyof typeof editorNotifications;
export type NotificationParams<M extends EditorNotification> = z.infer<
  (typeof editorNotifications)[M]
>;
