import type { ClientReplay } from '@tandem/testkit';

/**
 * Zed (zed-industries/zed; its repository is too large to bring here, so its places are named by
 * file and function, read in the stored index of its sources).
 */
export const zed: ClientReplay = {
  name: 'Zed',
  initialize: {
    // Its 2024 sources send none; Tandem then takes the process that started it (Zed).
    processId: null,
    clientInfo: { name: 'Zed', version: '0.190.0' },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      textDocument: { synchronization: { didSave: true } },
      window: { workDoneProgress: true, showMessage: {} },
      workspace: { workspaceFolders: true },
    },
  },
  initializeSource:
    'zed-industries/zed crates/lsp/src/lsp.rs, default_initialize_params (position_encodings ' +
    'UTF16, window without show_document, client_info from the release channel: "Zed")',
  cursorRequests: [
    {
      method: 'textDocument/documentHighlight',
      afterMs: 75,
      at: 'head',
      source:
        'zed-industries/zed crates/editor/src/editor.rs, DOCUMENT_HIGHLIGHTS_DEBOUNCE_TIMEOUT ' +
        "(75 ms) and refresh_document_highlights (the newest selection's head)",
    },
    {
      method: 'textDocument/codeAction',
      afterMs: 250,
      at: 'selection',
      source:
        'zed-industries/zed crates/editor/src/editor.rs, CODE_ACTIONS_DEBOUNCE_TIMEOUT (250 ms) ' +
        'and refresh_code_actions (the newest selection, start..end)',
    },
  ],
  // It does not advertise window/showDocument, and a request it has no handler for goes to its
  // log, unanswered (only its Copilot client handles showDocument, for links).
  showDocument: 'ignores',
  showDocumentSource:
    'zed-industries/zed crates/lsp/src/lsp.rs, handle_input (no handler: ' +
    'on_unhandled_notification, which logs it) and LanguageServer::new',
};
