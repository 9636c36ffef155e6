/** What the clients keep of a context update (docs/clients.md, "Notifications and context"): sending more is wasted. */

/** The clients keep the 10 newest files. */
export const MAX_OPEN_FILES = 10;
/** The clients cut the selection at 16384 characters, marked with this. */
export const MAX_SELECTED_TEXT = 16384;
const TRUNCATION_MARK = '... [TRUNCATED]';

/** Cuts at the clients' limit, marked as they mark it, without splitting a surrogate pair. */
export function trimSelection(text: string): string {
  if (text.length <= MAX_SELECTED_TEXT) return text;
  let end = MAX_SELECTED_TEXT - TRUNCATION_MARK.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + TRUNCATION_MARK;
}

/** Whether `text` is a selection that `trimSelection` cut (its length the limit or one less). */
export function wasTrimmed(text: string): boolean {
  return text.length >= MAX_SELECTED_TEXT - 1 && text.endsWith(TRUNCATION_MARK);
}
