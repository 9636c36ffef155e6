import type { ClientReplay } from '@tandem/testkit';

/** Zed (zed-industries/zed at bbd431ae, its 0.191.0 of June 2025). */
export const zed: ClientReplay = {
  name: 'Zed',
  initialize: {
    // It sends none; Tandem then takes the process that started it (Zed).
    processId: null,
    clientInfo: { name: 'Zed', version: '0.191.0' },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      textDocument: { synchronization: { didSave: true } },
      window: { workDoneProgress: true, showMessage: {} },
      workspace: { workspaceFolders: true },
    },
  },
  initializeSource:
    'zed-industries/zed crates/lsp/src/lsp.rs:606-822 (default_initialize_params), :619 ' +
    '(process_id none), :625 (UTF-16), :637 (workspace folders), :786 (did_save), :802-808 ' +
    '(window without show_document), :812-817 (client_info: the release channel), ' +
    'crates/release_channel/src/lib.rs:147-154 ("Zed" for the stable channel)',
  cursorRequests: [
    {
      // Only when the selection's head and tail are in one word (:6246-6253): a selection
      // across words reaches the server by the code action request alone, which comes last.
      method: 'textDocument/documentHighlight',
      afterMs: 75,
      at: 'head',
      source:
        'zed-industries/zed crates/editor/src/editor.rs:2786-2787 (on each selection change), ' +
        ":6229-6259 (refresh_document_highlights: the newest selection's head, after " +
        'lsp_highlight_debounce), assets/settings/default.json:203 (75 ms)',
    },
    {
      method: 'textDocument/codeAction',
      afterMs: 250,
      at: 'selection',
      source:
        'zed-industries/zed crates/editor/src/editor.rs:2786 (on each selection change), ' +
        ':6073-6098 (refresh_code_actions: the newest selection, start..end, after ' +
        'CODE_ACTIONS_DEBOUNCE_TIMEOUT), :229 (250 ms)',
    },
  ],
  // It does not advertise window/showDocument, and a request it has no handler for goes to its
  // log, unanswered.
  showDocument: 'ignores',
  showDocumentSource:
    'zed-industries/zed crates/lsp/src/lsp.rs:518-526 (handle_input: a message with no ' +
    'handler goes to on_unhandled_notification) and :369-376 (which logs it)',
};
