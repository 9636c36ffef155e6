/**
 * The tested editor versions have one source, `EDITORS`: every document and package header that
 * states the lowest version an adapter needs, or the versions it is tested on, agrees with it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EDITORS, matchesLabel, type EditorName } from './registry.js';
import { REPO_ROOT } from '../repo-root.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** The adapters of this repository, with the files that state what each needs. */
const ADAPTERS: { editor: EditorName; documents: string[] }[] = [
  { editor: 'nvim', documents: ['doc/tandem.txt'] },
  { editor: 'vim', documents: ['doc/tandem-vim.txt'] },
  { editor: 'emacs', documents: ['emacs/README.md'] },
];

/** Fails unless the versions named in `listed` ("0.7.2, 0.10.4") are `labels`, in order. */
function assertTested(listed: string | undefined, labels: string[], where: string): void {
  assert.ok(listed !== undefined, `${where} names no tested versions`);
  const versions = listed.split(/,\s*|\s+and\s+/).map((v) => v.replace(/\s*\(.*\)$/, '').trim());
  assert.equal(versions.length, labels.length, `${where}: ${listed} against ${labels.join(', ')}`);
  versions.forEach((version, i) =>
    assert.ok(matchesLabel(labels[i]!, version), `${where}: ${version} is not ${labels[i]}`),
  );
}

for (const { editor, documents } of ADAPTERS) {
  const { title, versions } = EDITORS[editor];
  const lowest = versions[0]!.label;
  const tested = versions.map((v) => v.label).filter((label) => label !== 'newest');

  describe(`${title}: ${lowest} or newer, tested on ${tested.join(', ')} and the newest`, () => {
    it('the README says so in its table of editors and where it tells how the tests run', () => {
      const readme = read('README.md');
      const row = readme.split('\n').find((line) => line.startsWith(`| ${title} `));
      assert.ok(row?.startsWith(`| ${title} ${lowest} or newer |`), `README row: ${row}`);
      assertTested(/tested on (.*?) and the newest/.exec(row ?? '')?.[1], tested, 'README row');
      const runs = /Every editor test runs on[^]*?\n\n/.exec(readme)?.[0].replace(/\s+/g, ' ');
      const named = new RegExp(`${title} ([\\d., ]+?),? and the newest`).exec(runs ?? '')?.[1];
      assertTested(named, tested, 'README on the test runs');
    });

    it('docs/architecture.md and its own documents name the same lowest version', () => {
      assert.match(read('docs/architecture.md'), new RegExp(`${title} ${lowest} and newer`));
      for (const document of documents) {
        assert.match(read(document), new RegExp(`${title} ${lowest} or newer`), document);
      }
    });
  });
}

describe('Emacs: the package header', () => {
  const header = read('emacs/tandem.el');
  const { versions } = EDITORS.emacs;

  it('requires the lowest tested Emacs', () => {
    assert.match(
      header,
      new RegExp(`^;; Package-Requires: \\(\\(emacs "${versions[0]!.label}"\\)\\)$`, 'm'),
    );
  });

  it('names the versions it is tested on', () => {
    const commentary = /;; Tested on Emacs ([^]*?) and the newest/.exec(header)?.[1];
    const labels = versions.map((v) => v.label).filter((label) => label !== 'newest');
    assertTested(commentary?.replace(/\n;;\s*/g, ' '), labels, 'tandem.el');
  });
});
