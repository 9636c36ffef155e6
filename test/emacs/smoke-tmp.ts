import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox, realClientIn } from '@tandem/testkit';
import { EmacsSession } from './emacs-session.js';
const sandbox = new Sandbox();
const file = path.join(sandbox.workspace, 'notes.txt');
writeFileSync(file, 'one\nhéllo 文件 x\n');
const emacs = await EmacsSession.start(sandbox, { tandem: true, args: [file] });
try {
  const gemini = await realClientIn(sandbox, 'gemini');
  console.log(await gemini.connect());
  await emacs.press('C-n', 'C-e', 'C-b');
  const ctx = await gemini.waitForContext(
    (c) => c?.workspaceState?.openFiles?.[0]?.cursor?.character === 10,
  );
  console.log(JSON.stringify(ctx));
  console.log(await emacs.status());
  const diff = gemini.openDiff(file, 'one\nTWO\n');
  await diff.opened;
  console.log(await emacs.screen());
  await emacs.press('M->');
  await emacs.type('edited');
  await emacs.press('C-c', 'C-c');
  console.log(await diff.result);
  console.log(await emacs.screen());
  await gemini.kill();
} finally {
  console.log(await emacs.log());
  await emacs.close();
  sandbox.remove();
}
