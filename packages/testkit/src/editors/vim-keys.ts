/** The keys a user types in Vim and in Neovim, whose plugins share their commands and mappings. */
import type { Position } from '../conformance/adapter-driver.js';

/** Each named gesture's keys, `enter` being how Enter is typed; `<leader>` is the default, `\`. */
export function gestureKeys(enter: string) {
  return {
    accept: {
      ':w': `:w${enter}`,
      ':TandemAccept': `:TandemAccept${enter}`,
      '<leader>da': '\\da',
    } as Record<string, string>,
    // The first one also rejects an edited proposal (`:q` refuses to drop the edits).
    reject: {
      ':TandemReject': `:TandemReject${enter}`,
      ':q': `:q${enter}`,
      '<leader>dr': '\\dr',
      'closing the tab (:tabclose)': `:tabclose${enter}`,
    } as Record<string, string>,
  };
}

/** Keys that move the cursor to `position` in Normal or Visual mode (`l` counts characters). */
export function moveKeys({ line, character }: Position): string {
  return `${line}G0${character > 1 ? `${character - 1}l` : ''}`;
}
