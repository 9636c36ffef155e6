/**
 * Proposals of files whose names each LSP client writes otherwise in a URI (hex digits of
 * either case, `[ ]` and `:` escaped or not), with the temporary folder reached through a link
 * (macOS's `/var` → `/private/var`): the user edits each proposal and saves it, and the real
 * Gemini CLI client gets the edited text.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { DiffResult } from '../real-clients/real-client.js';
import { waitFor } from '../wait.js';
import { sceneWith } from './adapter-conformance.js';
import type { AdapterDriver } from './adapter-driver.js';

/** Non-ASCII, a web framework's route (`[id]`), a colon. */
export const SPELLED_NAMES = ['café.txt', '[id].js', 'a:b.txt'];

/**
 * Registers the cases (`node:test`) for the editor `driver` starts, saving a proposal with
 * `saveGesture` (one of its accept gestures). Call it once, at the top level of a test file.
 */
export function runProposalNames(driver: AdapterDriver, saveGesture: string): void {
  describe(
    `${driver.name}: proposals of names each client spells its own way, TMPDIR through a link`,
    { skip: driver.skip },
    () => {
      const scene = sceneWith(driver, ['gemini'], undefined, { tmpDirThroughLink: true });

      for (const name of SPELLED_NAMES) {
        test(`${name}: edited, then saved: the CLI gets the edited text`, async (t) => {
          const { sandbox, editor } = scene;
          const gemini = scene.clients.get('gemini');
          assert.ok(gemini, 'the gemini client');
          const filePath = path.join(sandbox.workspace, name);
          writeFileSync(filePath, 'on disk\n');
          const diff = gemini.openDiff(filePath, 'proposed\n');
          // A case that fails must not hold the client's one diff for the next ones.
          t.after(() => gemini.closeDiff(filePath).catch(() => undefined));
          let result: DiffResult | undefined;
          void diff.result.then((settled) => (result = settled));
          await diff.opened;
          await waitFor(`the proposal of ${name}`, async () =>
            (await editor.diffViews()).some((view) => view.filePath === filePath)
              ? true
              : undefined,
          );
          await editor.editProposal(filePath, 'proposed, edited\n');
          await editor.accept(filePath, saveGesture);
          const outcome = await waitFor("the client's outcome", () => result);
          assert.equal(outcome.status, 'accepted');
          assert.equal(outcome.content?.replace(/\n$/, ''), 'proposed, edited');
          // The CLI writes an accepted file, never the editor.
          assert.equal(readFileSync(filePath, 'utf8'), 'on disk\n');
        });
      }
    },
  );
}
