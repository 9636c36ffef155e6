import type { EditorInfo } from '@tandem/core';
import type { InitializeParams } from 'vscode-languageserver';
import { filePath } from './file-identity.js';

/**
 * Editors by the `clientInfo.name` their LSP client sends (matched without case, by part), as
 * the CLIs will name them in "Connected to …". The sources of each name are in docs/lsp.md.
 */
const KNOWN_EDITORS: { part: string; name: string; displayName: string }[] = [
  { part: 'helix', name: 'helix', displayName: 'Helix' },
  { part: 'sublime', name: 'sublime-text', displayName: 'Sublime Text' },
  { part: 'zed', name: 'zed', displayName: 'Zed' },
  { part: 'kak', name: 'kakoune', displayName: 'Kakoune' },
  { part: 'neovim', name: 'neovim', displayName: 'Neovim' },
  { part: 'eglot', name: 'emacs', displayName: 'Emacs' },
  { part: 'emacs', name: 'emacs', displayName: 'Emacs' },
  { part: 'intellij', name: 'jetbrains', displayName: 'IntelliJ IDEA' },
  { part: 'pycharm', name: 'jetbrains', displayName: 'PyCharm' },
  { part: 'webstorm', name: 'jetbrains', displayName: 'WebStorm' },
  { part: 'goland', name: 'jetbrains', displayName: 'GoLand' },
  { part: 'rustrover', name: 'jetbrains', displayName: 'RustRover' },
  { part: 'clion', name: 'jetbrains', displayName: 'CLion' },
  { part: 'phpstorm', name: 'jetbrains', displayName: 'PhpStorm' },
  { part: 'rubymine', name: 'jetbrains', displayName: 'RubyMine' },
  { part: 'rider', name: 'jetbrains', displayName: 'Rider' },
  { part: 'android studio', name: 'jetbrains', displayName: 'Android Studio' },
  { part: 'kate', name: 'kate', displayName: 'Kate' },
];

/**
 * Who the editor is: its name from `clientInfo`, its process from `processId` (the process that
 * started this server when it names none or one that is not alive here, as from a container).
 */
export function editorFrom(
  params: Pick<InitializeParams, 'clientInfo' | 'processId'>,
  isAlive: (pid: number) => boolean,
): EditorInfo {
  const client = params.clientInfo;
  const known = KNOWN_EDITORS.find(({ part }) => client?.name.toLowerCase().includes(part));
  const pid =
    params.processId !== null && isAlive(params.processId) ? params.processId : process.ppid;
  const named = client?.name.trim()
    ? { name: slug(client.name), displayName: client.name.trim() }
    : { name: 'lsp-editor', displayName: 'Editor (LSP)' };
  return {
    ...(known ? { name: known.name, displayName: known.displayName } : named),
    ...(client?.version && { version: client.version }),
    pid,
  };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'lsp-editor'
  );
}

/**
 * The workspace folders: every one of `workspaceFolders`, else `rootUri`, else the deprecated
 * `rootPath`, else the folder the editor started this server in. Only `file:` folders.
 */
export function workspaceFrom(
  params: Pick<InitializeParams, 'workspaceFolders' | 'rootUri' | 'rootPath'>,
  cwd: string,
): string[] {
  const uris = params.workspaceFolders?.length
    ? params.workspaceFolders.map((folder) => folder.uri)
    : params.rootUri
      ? [params.rootUri]
      : [];
  const folders = uris.flatMap((uri) => {
    const path = filePath(uri);
    return path === undefined ? [] : [path];
  });
  if (folders.length > 0) return folders;
  return [params.rootPath || cwd];
}
