import { existsSync } from 'node:fs';
import path from 'node:path';
import { TANDEM } from '../bridge-editor.js';
import { missing } from '../needs.js';
import { REPO_ROOT } from '../repo-root.js';
import { waitFor } from '../wait.js';
import { defaultEditor } from './editor-version.js';
import type { EditorName } from './registry.js';

export interface EditorNeeds {
  /** The built sidecar (`tandem bridge`), which the editor plugins start. */
  sidecar?: boolean;
  tmux?: boolean;
  chromium?: boolean;
  /** The test states its versions (`forEachVersion` checks them): no default one is needed. */
  statedVersions?: boolean;
}

/**
 * Why the tests of `editor` cannot run here, or `false` (under CI a missing program fails
 * instead). Tests that state no versions run on the default one (`$TANDEM_<EDITOR>`, else the
 * system's).
 */
export function editorSkipReason(editor: EditorName, needs: EditorNeeds = {}): string | false {
  const reasons =
    needs.sidecar && !existsSync(TANDEM)
      ? [`the sidecar is not built (${path.relative(REPO_ROOT, TANDEM)}; run npm run build)`]
      : [];
  const editorMissing = needs.statedVersions ? undefined : defaultEditor(editor).reason;
  if (editorMissing) reasons.push(editorMissing);
  const programs = [
    ...(needs.tmux ? ['tmux'] : []),
    ...(needs.chromium ? ['/usr/bin/chromium'] : []),
  ];
  return missing(programs, reasons);
}

/** Waits until `status()` says Tandem is `state`; fails at once when it failed instead. */
export function waitForTandemState<S extends { state: string; error?: string | null }>(
  state: string,
  status: () => Promise<S>,
  options: { timeoutMs?: number; details?: () => Promise<string> } = {},
): Promise<S> {
  return waitFor(
    `Tandem to be ${state}`,
    async () => {
      const now = await status();
      if (now.state === 'failed' && state !== 'failed') {
        const details = options.details ? `\n${await options.details()}` : '';
        throw new Error(`Tandem failed: ${now.error}${details}`);
      }
      return now.state === state ? now : undefined;
    },
    options.timeoutMs,
  );
}

/** A tab page as Neovim's and Vim's sessions see it: how many tabs, and the windows of this one. */
type TabView = { tabs: number; windows: { diff: unknown }[] };

/** An editor that shows a diff in a tab of its own (Neovim, Vim). */
interface TabbedEditor<T extends TabView> {
  currentTab(): Promise<T>;
  status(): Promise<{ diffs: unknown[] }>;
}

/** Waits until the current tab is a diff view (two diff windows), and returns it. */
export function waitForDiffTab<T extends TabView>(editor: TabbedEditor<T>): Promise<T> {
  return waitFor('a diff tab', async () => {
    const tab = await editor.currentTab();
    return tab.windows.length === 2 && tab.windows.every((w) => w.diff) ? tab : undefined;
  });
}

/** Waits until no diff view is left: one tab, and Tandem holds no diff. */
export function waitForNoDiffTab<T extends TabView>(editor: TabbedEditor<T>): Promise<true> {
  return waitFor('the diff tab to close', async () => {
    const [tab, status] = await Promise.all([editor.currentTab(), editor.status()]);
    return tab.tabs === 1 && status.diffs.length === 0 ? true : undefined;
  });
}
