import { MAX_ANSWER_BYTES, MAX_SELECTED_TEXT } from '@tandem/core';
// zod's small build: the sidecar of every editor window loads this at start-up; the full build
// comes only with the first CLI (the MCP SDK's schemas).
import english from 'zod/v4/locales/en.js';
import * as z from 'zod/mini';

// The small build carries no messages of its own; the editor shows these to the user.
z.config(english());

/**
 * Bridge protocol 1.3: the messages between an editor adapter and `tandem bridge`
 * (docs/bridge-protocol.md). Paths are absolute; lines and characters are 1-based, characters
 * counted in Unicode code points.
 */

/** The versions this sidecar speaks, oldest first. */
export const PROTOCOL_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** What the sidecar can do beyond 1.0, stated in the reply to `initialize`. */
export const SIDECAR_CAPABILITIES = {
  diffAnswerReplies: true,
  clientChanges: true,
  mentions: true,
};

/**
 * What the CLIs keep of the context, stated in the reply to `initialize` (1.3): an adapter that
 * reads a selection need read no more than this many characters (UTF-16 code units) of it.
 */
export const CONTEXT_LIMITS = { selectedText: MAX_SELECTED_TEXT };

/**
 * What the sidecar reads of a line ("Limits"): any answer to a proposal the engine accepted
 * fits, and nothing nests deeper than a message of the protocol could.
 */
export const LINE_LIMITS = { maxLineBytes: MAX_ANSWER_BYTES, maxDepth: 64 };

/**
 * A `status` lists at most this many clients; `omitted` counts the rest. An adapter that states
 * `clientChanges` gets `clients/changed` with only what changed instead.
 */
export const STATUS_CLIENT_LIMIT = 100;

/** Error codes of replies to `diff/accepted` and `diff/rejected` sent as requests (1.1). */
export const DIFF_ANSWER_ERRORS = { 'empty-accept': -32010, 'not-open': -32011 } as const;

const version = z.string().check(z.regex(/^\d+\.\d+$/, 'must be "major.minor"'));

const absolutePath = z.string().check(
  z.refine((path) => path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path), {
    message: 'must be an absolute path',
  }),
);
const position = z.int().check(z.minimum(1));
const flag = z.optional(z.boolean());

/** Editor → sidecar requests. */
export const editorRequests = {
  initialize: z.object({
    /** `1` (an adapter written for 1.0), or the range of versions the editor speaks. */
    protocol: z.union([z.int(), z.object({ min: version, max: version })]),
    capabilities: z.optional(z.object({ diffs: flag, clientChanges: flag })),
    editor: z.object({
      name: z.string().check(z.minLength(1)),
      displayName: z.string().check(z.minLength(1)),
      version: z.optional(z.string()),
      pid: z.int().check(z.positive()),
    }),
    workspaceFolders: z.array(absolutePath),
    isTrusted: flag,
    discovery: z.optional(z.object({ gemini: flag, qwenLock: flag, qwenLegacy: flag })),
    allowContainerHost: flag,
  }),
  shutdown: z.looseObject({}),
  /** The user sends the file, or lines of it, to the CLIs' prompts (`mentions`). */
  mention: z.object({
    path: absolutePath,
    lines: z.optional(z.object({ start: position, end: position })),
  }),
};

/** Editor → sidecar notifications. */
export const editorNotifications = {
  'workspace/changed': z.object({
    workspaceFolders: z.array(absolutePath),
    isTrusted: flag,
  }),
  'file/opened': z.object({ path: absolutePath }),
  'file/closed': z.object({ path: absolutePath }),
  'file/focused': z.object({ path: absolutePath }),
  'cursor/changed': z.object({
    path: absolutePath,
    line: position,
    character: position,
    selectedText: z.optional(z.string()),
    anchor: z.optional(z.object({ line: position, character: position })),
  }),
  'diff/accepted': z.object({ id: z.string(), content: z.string() }),
  'diff/rejected': z.object({ id: z.string() }),
};

/** The newest version in both the sidecar's list and the editor's range, if any. */
export function chooseVersion(offered: InitializeParams['protocol']): ProtocolVersion | undefined {
  const range =
    typeof offered === 'number' ? { min: `${offered}.0`, max: `${offered}.0` } : offered;
  const number = (v: string) => v.split('.').map(Number) as [number, number];
  const atMost = (a: string, b: string) => {
    const [am, an] = number(a);
    const [bm, bn] = number(b);
    return am < bm || (am === bm && an <= bn);
  };
  return [...PROTOCOL_VERSIONS].reverse().find((v) => atMost(range.min, v) && atMost(v, range.max));
}

/** Whether the chosen version is `since` or newer (what a version added is sent from then on). */
export function isAtLeast(version: ProtocolVersion, since: ProtocolVersion): boolean {
  return PROTOCOL_VERSIONS.indexOf(version) >= PROTOCOL_VERSIONS.indexOf(since);
}

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
