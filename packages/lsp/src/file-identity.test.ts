import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CLIENT_URIS, encodedUri } from '@tandem/testkit';
import { documentKey, fileKey, filePath } from './file-identity.js';

const NAMES = ['café.txt', '[id].tsx', 'a:b.txt', 'with space & 100%.txt', 'ω (copy).js'];

const root = mkdtempSync(path.join(tmpdir(), 'file-identity-'));
after(() => rmSync(root, { recursive: true, force: true }));
const real = path.join(root, 'real');
mkdirSync(real);
// A folder reached through a link, as macOS's temporary folder is (`/var` → `/private/var`).
const linked = path.join(root, 'linked');
symlinkSync(real, linked);
for (const name of NAMES) writeFileSync(path.join(real, name), name);

for (const [client, uriOf] of Object.entries(CLIENT_URIS)) {
  test(`${client}'s URIs name the same file as Tandem's`, () => {
    for (const name of NAMES) {
      const tandems = pathToFileURL(path.join(linked, name)).href;
      const theirs = uriOf(path.join(linked, name));
      assert.equal(documentKey(theirs), documentKey(tandems), `${name}: ${theirs} ≠ ${tandems}`);
      assert.equal(documentKey(theirs), path.join(realpathSync(real), name));
    }
  });
}

test('the clients do spell these names otherwise', () => {
  const spellings = (name: string) =>
    new Set(Object.values(CLIENT_URIS).map((uriOf) => uriOf(path.join(linked, name))));
  for (const name of NAMES) assert.ok(spellings(name).size > 2, name);
});

test('hex digits of either case, file:/ and file://localhost/ decode to one path', () => {
  const file = path.join(real, 'café.txt');
  const forms = [
    encodedUri('file://', file, /[A-Za-z0-9/._-]/, 'lower'),
    encodedUri('file://', file, /[A-Za-z0-9/._-]/, 'upper'),
    encodedUri('file:', file, /[A-Za-z0-9/._-]/, 'upper'),
    encodedUri('file://localhost', file, /[A-Za-z0-9/._-]/, 'lower'),
  ];
  for (const uri of forms) assert.equal(filePath(uri), file, uri);
});

test('a file not there yet: the real path of the folder above, with the name as given', () => {
  assert.equal(
    fileKey(path.join(linked, 'new', 'deeper', 'x.txt')),
    path.join(realpathSync(real), 'new', 'deeper', 'x.txt'),
  );
  assert.equal(
    fileKey(path.join(linked, '..', 'linked', 'café.txt')),
    fileKey(path.join(real, 'café.txt')),
  );
});

test('a URI that names no file of this machine', () => {
  assert.equal(filePath('https://example.com/x'), undefined);
  assert.equal(filePath('untitled:Untitled-1'), undefined);
  assert.equal(filePath('file:///a%2Fb'), undefined, 'an encoded / is no file name');
  assert.equal(filePath('file://elsewhere/x'), undefined);
  assert.equal(documentKey('untitled:Untitled-1'), 'untitled:Untitled-1');
});
