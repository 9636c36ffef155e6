import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { privateFolderProblem } from '@tandem/command';
import type { Logger } from '@tandem/core';
import { escapeHtml } from './html-text.js';

/** An opened page's forwarding file: `remove()` deletes it (at once, or when serve stops). */
export interface OpenedPage {
  remove(): Promise<void>;
}

/**
 * Opens `url` in the default browser without putting it on a command line, where every user
 * can read it (`/proc/PID/cmdline`) for as long as the opener runs: the opener is given an
 * owner-only file that forwards to the URL. Opening a browser is a convenience: when it fails,
 * the printed URL still works.
 */
export async function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<OpenedPage> {
  // mkdtemp makes the folder 0700: no other user can read the file; and no other user can swap
  // it for one of theirs (which would be given the URL) when no other user can change the
  // folders that hold it.
  const dir = await mkdtemp(join(env.TMPDIR || tmpdir(), 'tandem-open-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const problem = privateFolderProblem(dir);
  if (problem !== undefined) {
    await remove();
    throw new Error(problem);
  }
  const page = join(dir, 'review-page.html');
  await writeFile(page, forwardingPage(url), { mode: 0o600, flag: 'wx' });
  const target = pathToFileURL(page).href;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [target]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', target]]
        : ['xdg-open', [target]];
  const warn = (why: string) =>
    log.warn(`could not open a browser (${command} ${why}); open the URL yourself`);
  const child = spawn(command, args, { env, stdio: 'ignore', detached: true });
  child.on('error', (error) => warn(error.message));
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) warn(`exited with status ${code}`);
  });
  child.unref();
  return { remove };
}

/** A page that sends the browser on to `url` at once, and tells no one where it came from. */
function forwardingPage(url: string): string {
  const attribute = escapeHtml(url);
  return (
    '<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n' +
    `<meta http-equiv="refresh" content="0;url=${attribute}">\n` +
    `<title>Tandem review page</title>\n<a href="${attribute}">Open the review page</a>\n`
  );
}
