/**
 * Hostile file names in the terminal editors: the real Gemini CLI client proposes an edit of a
 * file whose name an editor could take for a command, a pattern or something to expand. The
 * editor must show the proposal of exactly that file, run nothing, write nothing, and hand the
 * accepted text back for that path.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRealClient, type RealClient } from '../real-clients/real-client.js';
import { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import type { AdapterDriver, EditorUnderTest } from './adapter-driver.js';

/** What a hostile name would create if an editor ran any of it. */
const CANARY = 'PWNED';

/** The longest name a Linux file system takes, in bytes. */
const NAME_MAX = 255;

/** 255 bytes: a right-to-left override (what follows it shows reversed), two-byte letters. */
const LONGEST = `long-\u202e${'ж'.repeat((NAME_MAX - Buffer.byteLength('long-\u202e.js')) / 2)}.js`;

/**
 * The names, each relative to the workspace, with what it tries; `created`: a file the
 * proposal creates (the others exist).
 */
export const HOSTILE_NAMES: { name: string; tries: string; created?: true }[] = [
  {
    name: `+sil!call writefile([],'${CANARY}')`,
    tries: 'a leading + runs the rest as a command after :edit, :split or :file (Vim, Neovim)',
  },
  {
    name: `\`touch ${CANARY}\``,
    tries: 'backticks in a file name run the shell in :edit and expand() (Vim, Neovim)',
  },
  {
    name: `x|!touch ${CANARY}`,
    tries: '| ends an Ex command; :! runs the shell (Vim, Neovim)',
  },
  {
    name: '%#<cword><cfile>.txt',
    tries:
      "% and # stand for the current and the alternate file, <cword> for the word under the cursor (Vim, Neovim); % is a mode line's escape (Emacs's header line)",
  },
  {
    name: '*?[ab]{c,d}.txt',
    tries:
      'wildcards: expanded by :file and :edit, a pattern for bufnr() and bufexists() (Vim, Neovim), for find-file (Emacs)',
  },
  {
    name: `$HOME $(touch ${CANARY}) \${HOME}.txt`,
    tries:
      'variables expanded in file names (Vim, Neovim; Emacs: substitute-in-file-name), command substitution if a shell sees it',
  },
  {
    name: '~/tilde.txt',
    tries:
      'a folder named ~: /~/ starts over at the home folder in substitute-in-file-name (Emacs), ~ is expanded by Vim',
  },
  {
    name: `two\n!id>${CANARY} 'single' "double" \\back\\slash.txt`,
    tries:
      'a new line ends a command line and the rest runs as the next one (Vim, Neovim), and breaks line-based protocols; quotes and backslashes break naive quoting',
  },
  {
    name: LONGEST,
    tries:
      "a new file whose name has the file system's 255 bytes, of two-byte letters, with a right-to-left override",
    created: true,
  },
];

/** Every file and folder under `root`, relative, sorted. */
function tree(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();
}

/** Where a canary was created anywhere in the sandbox (a redirection may add to its name). */
function canaries(sandbox: Sandbox): string[] {
  return tree(sandbox.root).filter((entry) => path.basename(entry).startsWith(CANARY));
}

/** `name` quoted for a test's title, its bidirectional marks escaped. */
function printable(name: string): string {
  return JSON.stringify(name).replace(
    /[\u202a-\u202e\u2066-\u2069]/g,
    (mark) => `\\u${mark.charCodeAt(0).toString(16)}`,
  );
}

/** What the user was shown that reads as a failure (Vim's `E123:`, "error", "cannot"...). */
function errorsIn(messages: string): string[] {
  return messages.split('\n').filter((line) => /\bE\d+:|error|cannot|failed/i.test(line));
}

/**
 * Registers the hostile-name cases (`node:test`) for the editor `driver` starts: one editor and
 * one real Gemini CLI client for all of them. Call it once, at the top level of a test file.
 */
export function runHostilePaths(driver: AdapterDriver): void {
  describe(`${driver.name}: hostile file names`, { skip: driver.skip }, () => {
    let sandbox: Sandbox;
    let editor: EditorUnderTest;
    let gemini: RealClient;

    before(async () => {
      sandbox = new Sandbox();
      editor = await driver.start(sandbox);
      const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
      gemini = await startRealClient({ kind: 'gemini', cwd, tmpDir, qwenHome, home });
      const state = await gemini.connect();
      assert.equal(state.status, 'connected', state.details);
    });

    after(async () => {
      await gemini?.kill();
      await editor?.close();
      sandbox?.remove();
    });

    HOSTILE_NAMES.forEach(({ name, tries, created }, n) => {
      test(`${printable(name.slice(0, 40))}: ${tries}`, async (t) => {
        const filePath = path.join(sandbox.workspace, name);
        mkdirSync(path.dirname(filePath), { recursive: true });
        const old = `on disk ${n}\n`;
        if (!created) writeFileSync(filePath, old);
        const proposal = `proposed ${n}\n`;
        const files = tree(sandbox.workspace);
        const messages = await editor.messages();

        const diff = gemini.openDiff(filePath, proposal);
        // A case that fails must not hold the client's one diff for the next ones.
        t.after(() => gemini.closeDiff(filePath).catch(() => undefined));
        await diff.opened;
        const views = await waitFor(`the view of ${JSON.stringify(name)}`, async () => {
          const shown = await editor.diffViews();
          return shown.length > 0 ? shown : undefined;
        });
        assert.deepEqual(
          views.map((view) => view.filePath),
          [filePath],
        );
        assert.equal(views[0]!.proposal.replace(/\n$/, ''), proposal.replace(/\n$/, ''));

        await editor.accept(filePath, driver.gestures.accept[0]!);
        // The client takes an outcome only for the very path string it sent.
        assert.deepEqual(await diff.result, { status: 'accepted', content: proposal });
        await waitFor('the view to close', async () =>
          (await editor.diffViews()).length === 0 ? true : undefined,
        );

        assert.deepEqual(canaries(sandbox), [], 'something ran');
        // The CLI writes an accepted file, never the editor: nothing on disk changed.
        assert.deepEqual(tree(sandbox.workspace), files);
        if (created) assert.equal(existsSync(filePath), false);
        else assert.equal(readFileSync(filePath, 'utf8'), old);
        const shown = (await editor.messages()).slice(messages.length);
        assert.deepEqual(errorsIn(shown), [], shown);
      });
    });
  });
}
