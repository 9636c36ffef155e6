import type { ClientReplay } from '@tandem/testkit';

/** JetBrains IDEs through LSP4IJ (redhat-developer/lsp4ij at d21cff92). */
export const lsp4ij: ClientReplay = {
  name: 'JetBrains IDE with LSP4IJ',
  initialize: {
    processId: 'editor',
    clientInfo: { name: 'IntelliJ IDEA 2025.2', version: '2025.2 (build IU-252.23892.409)' },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      textDocument: { synchronization: { didSave: true, willSave: true } },
      window: { showDocument: { support: true }, showMessage: {} },
    },
  },
  initializeSource:
    'redhat-developer/lsp4ij src/main/java/com/redhat/devtools/lsp4ij/LanguageServerWrapper.java' +
    ':217-219, :441 (processId: the IDE), :574; internal/IntelliJPlatformUtils.java:47-57 ' +
    '(clientInfo: the full application name); internal/capabilities/' +
    'ClientCapabilitiesFactory.java:41 (UTF-16), :317 (showDocument)',
  cursorRequests: [
    {
      // The IDE's highlighting pass after the caret moves (its daemon's 300 ms delay).
      method: 'textDocument/documentHighlight',
      afterMs: 300,
      at: 'head',
      source:
        'redhat-developer/lsp4ij src/main/java/com/redhat/devtools/lsp4ij/features/highlight/' +
        'LSPHighlightUsagesHandlerFactory.java:76-79',
    },
    {
      // Then the intentions, for the caret's selection (triggerKind Automatic).
      method: 'textDocument/codeAction',
      afterMs: 300,
      at: 'selection',
      source:
        'redhat-developer/lsp4ij src/main/java/com/redhat/devtools/lsp4ij/features/codeAction/' +
        'intention/LSPIntentionAction.java:48-61, :73-91',
    },
  ],
  showDocument: 'opens',
  showDocumentSource:
    'redhat-developer/lsp4ij src/main/java/com/redhat/devtools/lsp4ij/client/' +
    'LanguageClientImpl.java:115-118',
};
