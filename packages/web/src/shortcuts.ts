export type Shortcut = 'accept' | 'reject';

const mac = /Mac|iPhone|iPad/.test(navigator.platform);

/** The keys of each shortcut, as the page shows them. */
export const shortcutKeys: Record<Shortcut, string[]> = {
  accept: mac ? ['⌘', '↵'] : ['Ctrl', 'Enter'],
  reject: mac ? ['⌘', '⇧', '⌫'] : ['Ctrl', 'Shift', 'Backspace'],
};

/**
 * Accept is Ctrl/Cmd+Enter; reject is Ctrl/Cmd+Shift+Backspace, because Ctrl/Cmd+Backspace
 * alone deletes a word (or a line) while editing.
 */
export function shortcutOf(event: KeyboardEvent): Shortcut | undefined {
  if (!(mac ? event.metaKey : event.ctrlKey) || event.altKey) return undefined;
  if (event.key === 'Enter' && !event.shiftKey) return 'accept';
  if (event.key === 'Backspace' && event.shiftKey) return 'reject';
  return undefined;
}
