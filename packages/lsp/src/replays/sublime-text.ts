import type { ClientReplay } from '@tandem/testkit';

/** Sublime Text's LSP package (sublimelsp/LSP at 7ffc7211). */
export const sublimeText: ClientReplay = {
  name: 'Sublime Text LSP',
  initialize: {
    processId: 'editor',
    clientInfo: { name: 'Sublime Text LSP', version: '2.5.0' },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      textDocument: { synchronization: { didSave: true, willSave: true } },
      window: { showDocument: { support: true }, showMessage: {} },
    },
  },
  initializeSource:
    'sublimelsp/LSP plugin/core/sessions.py:381 (positionEncodings), :641-643 (showDocument), ' +
    ':659-663 (processId, clientInfo)',
  cursorRequests: [
    {
      // When the selection stays put for FEATURES_TIMEOUT (300 ms): a highlight at its caret.
      method: 'textDocument/documentHighlight',
      afterMs: 300,
      at: 'head',
      source:
        'sublimelsp/LSP plugin/documents.py:456-471, :887-894 (point = region.b); ' +
        'plugin/core/types.py:59',
    },
  ],
  // Its own code actions on a selection go only to servers with diagnostics there
  // (plugin/documents.py:813-829): the user's code action menu sends the selection.
  selectionByCodeActionMenu: 'sublimelsp/LSP plugin/code_actions.py:393-404',
  showDocument: 'opens',
  showDocumentSource: 'sublimelsp/LSP plugin/core/sessions.py:2332-2348',
};
