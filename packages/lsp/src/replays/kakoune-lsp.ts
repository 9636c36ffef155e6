import type { ClientReplay } from '@tandem/testkit';

/** Kakoune with kakoune-lsp (kakoune-lsp/kakoune-lsp at 70fd59f). */
export const kakouneLsp: ClientReplay = {
  name: 'Kakoune with kakoune-lsp',
  initialize: {
    processId: 'editor',
    clientInfo: { name: 'kakoune-lsp', version: '18.1.2' },
    capabilities: {
      general: { positionEncodings: ['utf-8', 'utf-16'] },
      textDocument: { synchronization: { didSave: true } },
      window: {
        workDoneProgress: true,
        showMessage: { messageActionItem: { additionalPropertiesSupport: true } },
      },
    },
  },
  initializeSource:
    'kakoune-lsp/kakoune-lsp src/capabilities.rs:338-345 (no show_document), :358-365 ' +
    '(UTF-8, UTF-16), :391 (process_id), :399-402 (client_info)',
  cursorRequests: [
    {
      // NormalIdle (Kakoune's idle_timeout, 50 ms): code actions for the main selection.
      method: 'textDocument/codeAction',
      afterMs: 50,
      at: 'selection',
      source:
        'kakoune-lsp/kakoune-lsp rc/lsp.kak:159, :498, :972-976, :1931-1935; ' +
        'src/language_features/code_action.rs:42-53',
    },
  ],
  // A Kakoune cursor is a one-character selection, sent as such.
  cursorIsACharacter: true,
  // window/showDocument is answered MethodNotFound.
  showDocument: 'errors',
  showDocumentSource: 'kakoune-lsp/kakoune-lsp src/controller.rs:2054-2056, :2078-2083',
};
