/**
 * `tandem lsp --config helix`: the parsing of `hx --health`, and the command against each real
 * Helix of the editor roots, whose own `--health` then judges the entries.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { forEachVersion, Sandbox, shellQuote, TANDEM } from '@tandem/testkit';
import { configuredServers, helixConfig, languageNames } from './helix-config.js';

test('the languages of `hx --health languages`, under its heading', () => {
  const table =
    'Config file: default\n\nLanguage    Language servers   Debug adapter\n' +
    'ada         \u001b[38;5;9m✘\u001b[39m ada_language_server  None\n' +
    'c-sharp     ✘ OmniSharp   None\nadl         None    None\n';
  assert.deepEqual(languageNames(table), ['ada', 'c-sharp', 'adl']);
});

test('the servers of `hx --health LANGUAGE`, found or not, without Tandem', () => {
  const health =
    'Configured language servers:\n' +
    "  \u001b[0;31m✘\u001b[m jedi: \u001b[0;31m'jedi-language-server' not found in $PATH\u001b[m\n" +
    '  ✓ ruff: /usr/bin/ruff\n  ✓ tandem: /usr/bin/tandem\nConfigured debug adapter: None\n';
  assert.deepEqual(configuredServers(health), ['jedi', 'ruff']);
  assert.deepEqual(
    configuredServers('Configured language servers:\nConfigured formatter: None'),
    [],
  );
});

test('the entries: Tandem last with its features, a text language, the languages left out', () => {
  const text = helixConfig(
    [{ name: 'rust', servers: ['rust-analyzer'] }],
    { command: 'tandem', args: ['lsp'], environment: { A: '1', B: '' } },
    [{ name: 'python', servers: ['jedi-language-server'] }],
  );
  const tandem =
    '{ name = "tandem", only-features = ["code-action", "workspace-command", "diagnostics"] }';
  assert.ok(
    text.includes(
      '[language-server.tandem]\ncommand = "tandem"\nargs = ["lsp"]\nenvironment = { A = "1", B = "" }',
    ),
    text,
  );
  assert.ok(text.includes(`name = "rust"\nlanguage-servers = ["rust-analyzer", ${tandem}]`));
  assert.ok(text.includes(`name = "text"\nscope = "text.plain"\nfile-types = ["txt"]`));
  assert.match(text, /^# {3}python \(jedi-language-server\)$/m);
});

test("the text language named (Helix knows none) is Tandem's own, whole, once", () => {
  const text = helixConfig([{ name: 'text', servers: [] }], {
    command: 'tandem',
    args: ['lsp'],
    environment: {},
  });
  assert.ok(text.includes(`name = "text"\nscope = "text.plain"\nfile-types = ["txt"]`), text);
  assert.equal(text.match(/name = "text"/g)?.length, 1);
});

describe('tandem lsp --config helix with a real Helix', () => {
  forEachVersion('helix', ['25.01', 'newest'], (helix) => {
    test(`${helix.name}: entries Helix reads back with every server it had, plus Tandem`, () => {
      const sandbox = new Sandbox();
      try {
        // `hx` on PATH runs this version (its program by full path: the root sees this PATH).
        const bin = path.join(sandbox.root, 'bin');
        mkdirSync(bin);
        const hx = path.join(bin, 'hx');
        writeFileSync(
          hx,
          `#!/bin/sh\nexec ${helix
            .command('/usr/bin/hx')
            .map((word) => shellQuote(word))
            .join(' ')} "$@"\n`,
        );
        chmodSync(hx, 0o755);
        const env = sandbox.env({ PATH: `${bin}:${process.env.PATH}` });
        const run = (args: string[], cwd = sandbox.workspace) =>
          spawnSync(process.execPath, [TANDEM, ...args], { env, cwd, encoding: 'utf8' });
        const generated = run(['lsp', '--config', 'helix', 'rust', 'python', 'markdown']);
        assert.equal(generated.status, 0, generated.stderr);
        const project = path.join(sandbox.workspace, '.helix');
        mkdirSync(project);
        writeFileSync(path.join(project, 'languages.toml'), generated.stdout);
        const health = (language: string) =>
          spawnSync(hx, ['--health', language], {
            env: { ...env, NO_COLOR: '1' },
            cwd: sandbox.workspace,
            encoding: 'utf8',
          });
        const rust = configuredServers(health('rust').stdout + '\n');
        assert.ok(rust.includes('rust-analyzer'), rust.join(', '));
        const text = health('text');
        assert.equal(text.status, 0, text.stderr);
        // Tandem's server appears by its name (25.07) or its command (25.01, run through node).
        assert.match(text.stdout, /Configured language servers:\n\s+\S+ (tandem|\S*node):/);
        if (helix.label === '25.01') {
          assert.match(generated.stdout, /^# {3}python \(/m);
          assert.match(generated.stderr, /left out python/);
        } else {
          assert.match(generated.stdout, /name = "python"\nlanguage-servers = \[.*"jedi"/);
        }
      } finally {
        sandbox.remove();
      }
    });
  });
});
