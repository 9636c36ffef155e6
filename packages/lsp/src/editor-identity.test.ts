import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { editorFrom, workspaceFrom } from './editor-identity.js';

const alive = () => true;

test('known editors by their clientInfo name', () => {
  const named = (name: string) =>
    editorFrom({ clientInfo: { name }, processId: 42 }, alive).displayName;
  assert.equal(named('helix'), 'Helix');
  assert.equal(named('Sublime Text LSP'), 'Sublime Text');
  assert.equal(named('Zed'), 'Zed');
  assert.equal(named('Neovim'), 'Neovim');
  assert.equal(named('Eglot'), 'Emacs');
});

test('an unknown editor keeps its own name; none gives a plain one', () => {
  assert.deepEqual(
    editorFrom({ clientInfo: { name: 'My Editor', version: '2' }, processId: 7 }, alive),
    {
      name: 'my-editor',
      displayName: 'My Editor',
      version: '2',
      pid: 7,
    },
  );
  assert.equal(editorFrom({ processId: 7 }, alive).displayName, 'Editor (LSP)');
});

test('a processId that is not alive here (another PID namespace) gives the parent process', () => {
  assert.equal(editorFrom({ processId: 999999 }, () => false).pid, process.ppid);
  assert.equal(editorFrom({ processId: null }, alive).pid, process.ppid);
});

test('the workspace: every folder, else rootUri, else rootPath, else the cwd', () => {
  const uri = (path: string) => pathToFileURL(path).href;
  assert.deepEqual(
    workspaceFrom(
      {
        workspaceFolders: [
          { uri: uri('/a b'), name: 'a' },
          { uri: 'untitled:x', name: 'x' },
          { uri: uri('/c'), name: 'c' },
        ],
        rootUri: uri('/ignored'),
      },
      '/cwd',
    ),
    ['/a b', '/c'],
  );
  assert.deepEqual(workspaceFrom({ rootUri: uri('/root') }, '/cwd'), ['/root']);
  assert.deepEqual(workspaceFrom({ rootUri: null, rootPath: '/old' }, '/cwd'), ['/old']);
  assert.deepEqual(workspaceFrom({ rootUri: null }, '/cwd'), ['/cwd']);
});
