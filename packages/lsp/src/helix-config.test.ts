/**
 * `tandem lsp --config helix`: the reading of `hx --health`, Tandem's section as TOML, and the
 * command against each real Helix of the editor roots, which judges the whole file it writes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import {
  forEachVersion,
  Sandbox,
  shellQuote,
  TANDEM,
  TmuxPane,
  waitFor,
  type EditorVersion,
} from '@tandem/testkit';
import { configuredServers, firstCharacters, suggestedNames } from './helix-config.js';
import {
  LanguagesFileError,
  tandemSection,
  tomlString,
  withTandemSection,
} from './helix-languages-toml.js';

/** TOML as plain objects (smol-toml makes tables without a prototype). */
function parse(text: string): unknown {
  return JSON.parse(JSON.stringify(parseToml(text)));
}

function withoutColours(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

const SERVER = { command: 'tandem', args: ['lsp'], environment: { A: '1', B: '' } };

test('the languages Helix suggests for a name it does not know, whole at any width', () => {
  const health =
    "\u001b[mLanguage 'j (tandem asks)' not found\u001b[m\n" +
    'Did you mean one of these: janet, json, javascript, jjdescription ?\n';
  assert.deepEqual(suggestedNames(withoutColours(health)), [
    'janet',
    'json',
    'javascript',
    'jjdescription',
  ]);
  assert.deepEqual(suggestedNames("Language 'q (tandem asks)' not found\n"), []);
  assert.deepEqual(firstCharacters('Language  x\nada  ✘\n   cont\n-x\nÉclair\n\nTo see'), [
    'L',
    'a',
    'É',
    'T',
  ]);
});

test('the servers of `hx --health LANGUAGE`, found or not; none for a language Helix lacks', () => {
  const health =
    'Configured language servers:\n' +
    "  ✘ jedi: 'jedi-language-server' not found in $PATH\n" +
    '  ✓ ruff: /usr/bin/ruff\n  ✓ tandem: /usr/bin/tandem\nConfigured debug adapter: None\n';
  assert.deepEqual(configuredServers(health), ['jedi', 'ruff', 'tandem']);
  assert.deepEqual(
    configuredServers('Configured language servers: None\nConfigured formatter: None'),
    [],
  );
  assert.equal(configuredServers("Language 'nope' not found\n"), undefined);
});

test("Tandem's section: Tandem last with its features, a text language, the languages left out", () => {
  const text = tandemSection([{ name: 'rust', servers: ['rust-analyzer'] }], SERVER, [
    { name: 'python', servers: ['jedi-language-server'] },
  ]);
  const toml = parse(text) as {
    'language-server': { tandem: unknown };
    language: { name: string; 'language-servers': unknown[] }[];
  };
  assert.deepEqual(toml['language-server'].tandem, {
    command: 'tandem',
    args: ['lsp'],
    environment: { A: '1', B: '' },
  });
  const tandem = {
    name: 'tandem',
    'only-features': ['code-action', 'workspace-command', 'diagnostics'],
  };
  assert.deepEqual(toml.language[0], {
    name: 'rust',
    'language-servers': ['rust-analyzer', tandem],
  });
  assert.deepEqual(toml.language[1], {
    name: 'text',
    scope: 'text.plain',
    'file-types': ['txt'],
    'language-servers': [tandem],
  });
  assert.match(text, /^# {3}"python" \("jedi-language-server"\)$/m);
});

test("the text language named (Helix knows none) is Tandem's own, whole, once", () => {
  const text = tandemSection([{ name: 'text', servers: [] }], SERVER);
  assert.ok(text.includes(`name = "text"\nscope = "text.plain"\nfile-types = ["txt"]`), text);
  assert.equal(text.match(/name = "text"/g)?.length, 1);
});

test('every string is valid TOML: control characters, DEL, quotes, backslashes, odd keys', () => {
  const odd = 'a\u007fb\u0000c\u001bd"e\\f\ng\th\u0085i';
  const text = tandemSection(
    [{ name: odd, servers: [odd, 'plain'] }],
    { command: odd, args: [odd], environment: { [odd]: odd, PLAIN: odd } },
    [{ name: odd, servers: [odd] }],
  );
  const toml = parse(text) as {
    'language-server': { tandem: { command: string; args: string[]; environment: object } };
    language: { name: string; 'language-servers': unknown[] }[];
  };
  assert.equal(toml['language-server'].tandem.command, odd);
  assert.deepEqual(toml['language-server'].tandem.args, [odd]);
  assert.deepEqual(toml['language-server'].tandem.environment, { [odd]: odd, PLAIN: odd });
  assert.equal(toml.language[0]?.name, odd);
  assert.deepEqual(toml.language[0]?.['language-servers'].slice(0, 2), [odd, 'plain']);
  // The comment naming a left-out language stays one comment line.
  assert.equal(text.split('\n').filter((line) => line.startsWith('#   ')).length, 1);
  assert.throws(() => tomlString('lone \ud800 surrogate'), LanguagesFileError);
});

describe("Tandem's section in the user's languages.toml", () => {
  const own = '# mine\n[language-server.mine]\ncommand = "mine"\n';
  const section = tandemSection([{ name: 'rust', servers: ['mine'] }], SERVER);
  const again = tandemSection([{ name: 'go', servers: [] }], SERVER);

  test("added after the user's text, replaced in place, removed; the rest byte for byte", () => {
    assert.equal(withTandemSection('', section), section);
    const added = withTandemSection(own, section);
    assert.equal(added, `${own}\n${section}`);
    assert.equal(withTandemSection('x = 1', section), `x = 1\n\n${section}`);
    const later = `${added}\n[[language]]\nname = "mine"\n`;
    const replaced = withTandemSection(later, again);
    assert.equal(replaced, `${own}\n${again}\n[[language]]\nname = "mine"\n`);
    assert.equal(withTandemSection(replaced, again), replaced);
    assert.equal(withTandemSection(replaced, ''), `${own}\n\n[[language]]\nname = "mine"\n`);
    parse(replaced);
  });

  test('entries appended unmarked by an earlier `>>`, or a damaged section, are left as they are', () => {
    const unmarked =
      own +
      '# Tandem for Gemini CLI and Qwen Code, generated by `tandem lsp --config helix`.\n' +
      '[language-server.tandem]\ncommand = "tandem"\n';
    assert.throws(() => withTandemSection(unmarked, section), /line 4 starts the entries/);
    const [start] = section.split('\n');
    assert.throws(
      () => withTandemSection(`${own}${start}\n[language-server.tandem]\n`, section),
      /section is damaged/,
    );
    assert.throws(() => withTandemSection(`${section}${section}`, section), /section is damaged/);
  });
});

/** `hx` on a PATH of the sandbox, running `helix` (by its full path: a root sees this PATH). */
function hxOnPath(sandbox: Sandbox, helix: EditorVersion): string {
  const bin = path.join(sandbox.root, 'bin');
  mkdirSync(bin, { recursive: true });
  const words = helix.command('/usr/bin/hx').map((word) => shellQuote(word));
  writeFileSync(path.join(bin, 'hx'), `#!/bin/sh\nexec ${words.join(' ')} "$@"\n`, {
    mode: 0o755,
  });
  return bin;
}

/** The environment of a user with a fresh HOME: no ~/.config, no XDG_CONFIG_HOME. */
function freshHome(sandbox: Sandbox, bin: string): Record<string, string> {
  const env = sandbox.env({ PATH: `${bin}:${process.env.PATH}` });
  delete env.XDG_CONFIG_HOME;
  return env;
}

/**
 * Every language of Helix, from its own table in a terminal wide enough that no name is cut
 * (the footer of 25.07 below a blank line left out): what the section must cover.
 */
async function languagesOfWideTable(sandbox: Sandbox, env: Record<string, string>) {
  const dir = path.join(sandbox.root, 'tmux-wide');
  mkdirSync(dir, { recursive: true });
  const out = path.join(sandbox.root, 'table.txt');
  // 25.07 filters `languages` by the grammars in use; `all-languages` is every one.
  const line =
    `hx --health all-languages > ${shellQuote(out)}; ` +
    `grep -q "not found" ${shellQuote(out)} && hx --health languages > ${shellQuote(out)}`;
  const pane = await TmuxPane.start({
    dir,
    cwd: sandbox.workspace,
    shellLine: line,
    env: { ...env, NO_COLOR: '1' },
    width: 600,
  });
  try {
    await waitFor('the table', async () => ((await pane.ending()) ? true : undefined), 240_000);
  } finally {
    await pane.stop();
  }
  const rows = withoutColours(readFileSync(out, 'utf8')).split('\n');
  const end = rows.indexOf('', 1);
  const names = rows
    .slice(1, end < 0 ? undefined : end)
    .filter((row) => /^\S/.test(row))
    .map((row) => row.split(/\s+/)[0] as string);
  assert.ok(names.length > 100 && !names.some((name) => name.includes('…')), names.join(' '));
  return new Set(names);
}

/** The languages a written section covers: its entries, and those its comment leaves out. */
function languagesOfSection(text: string): Set<string> {
  const toml = parse(text) as { language: { name: string }[] };
  const left = [...text.matchAll(/^# {3}("(?:[^"\\]|\\.)*")/gm)].map(
    (match) => JSON.parse(match[1] as string) as string,
  );
  return new Set([...toml.language.map(({ name }) => name), ...left]);
}

describe('tandem lsp --config helix with a real Helix', () => {
  forEachVersion('helix', ['25.01', 'newest'], (helix) => {
    test(`${helix.name}: --write in a fresh HOME covers every language and Helix reads it; again from an 80-column terminal, the same file`, async () => {
      const sandbox = new Sandbox();
      try {
        const env = freshHome(sandbox, hxOnPath(sandbox, helix));
        const file = path.join(sandbox.home, '.config', 'helix', 'languages.toml');
        assert.ok(!existsSync(path.join(sandbox.home, '.config')));
        // No terminal at all: a session of its own, its output to pipes.
        const first = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [TANDEM, 'lsp', '--config', 'helix', '--write'], {
            env,
            cwd: sandbox.workspace,
            detached: true,
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('close', (status) => resolve({ status, stderr }));
        });
        assert.equal(first.status, 0, first.stderr);
        assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
        const written = readFileSync(file, 'utf8');
        const expected = await languagesOfWideTable(sandbox, env);
        expected.add('text');
        assert.deepEqual([...languagesOfSection(written)].sort(), [...expected].sort());

        // Helix reads the whole file (an error would send it back to its defaults), and lists
        // Tandem among each language's servers: by its name (25.07) or its command (25.01).
        for (const language of ['javascript', 'typescript', 'markdown', 'text']) {
          const health = spawnSync(path.join(sandbox.root, 'bin', 'hx'), ['--health', language], {
            env: { ...env, NO_COLOR: '1' },
            cwd: sandbox.workspace,
            encoding: 'utf8',
          });
          assert.equal(health.stderr, '', `${language}: ${health.stderr}`);
          const servers = configuredServers(withoutColours(health.stdout));
          assert.ok(
            servers?.some((name) => name === 'tandem' || /node$/.test(name)),
            `${language}: ${health.stdout}`,
          );
        }
        if (helix.label !== '25.01') {
          assert.match(written, /name = "python"\nlanguage-servers = \[.*"jedi"/);
        }

        // In a terminal of 80 columns, where Helix cuts the names of its table.
        const dir = path.join(sandbox.root, 'tmux-80');
        mkdirSync(dir);
        // The shell writes the status down: tmux does not always learn it.
        const status = path.join(dir, 'status');
        const command = [process.execPath, TANDEM, 'lsp', '--config', 'helix', '--write'];
        const pane = await TmuxPane.start({
          dir,
          cwd: sandbox.workspace,
          shellLine: `${command.map((word) => shellQuote(word)).join(' ')}; echo $? > ${shellQuote(status)}`,
          env: { ...env, TERM: 'xterm-256color' },
          width: 80,
          height: 24,
        });
        try {
          await waitFor('the command in 80 columns', () => pane.ending(), 240_000);
          assert.equal(readFileSync(status, 'utf8'), '0\n', await pane.capture());
        } finally {
          await pane.stop();
        }
        assert.equal(readFileSync(file, 'utf8'), written);
      } finally {
        sandbox.remove();
      }
    });
  });

  forEachVersion('helix', ['newest'], (helix) => {
    test(`${helix.name}: --write keeps the user's own entries, escapes a server's odd name, refuses unmarked entries`, () => {
      const sandbox = new Sandbox();
      try {
        const env = freshHome(sandbox, hxOnPath(sandbox, helix));
        const file = path.join(sandbox.home, '.config', 'helix', 'languages.toml');
        mkdirSync(path.dirname(file), { recursive: true });
        const own =
          '[language-server."my\\u007fserver"]\ncommand = "my-server"\n\n' +
          '[[language]]\nname = "rust"\nlanguage-servers = ["my\\u007fserver"]\n';
        writeFileSync(file, own);
        const write = () =>
          spawnSync(process.execPath, [TANDEM, 'lsp', '--config', 'helix', '--write', 'rust'], {
            env,
            cwd: sandbox.workspace,
            encoding: 'utf8',
          });
        const first = write();
        assert.equal(first.status, 0, first.stderr);
        const written = readFileSync(file, 'utf8');
        assert.ok(written.startsWith(`${own}\n# BEGIN tandem lsp --config helix`), written);
        const toml = parse(written) as {
          language: { name: string; 'language-servers': unknown[] }[];
        };
        assert.deepEqual(toml.language.at(-2)?.['language-servers'][0], 'my\u007fserver');
        assert.equal(write().status, 0);
        assert.equal(readFileSync(file, 'utf8'), written);

        const unmarked =
          `${own}# Tandem for Gemini CLI and Qwen Code, generated by \`tandem lsp --config helix\`.\n` +
          '[language-server.tandem]\ncommand = "tandem"\n';
        writeFileSync(file, unmarked);
        const refused = write();
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /is left as it was: line 7 starts the entries/);
        assert.equal(readFileSync(file, 'utf8'), unmarked);
      } finally {
        sandbox.remove();
      }
    });
  });
});

test('with no Helix on the PATH, --config helix says so, and writes nothing', () => {
  const sandbox = new Sandbox();
  try {
    const env = sandbox.env({ PATH: path.dirname(process.execPath) });
    const run = spawnSync(process.execPath, [TANDEM, 'lsp', '--config', 'helix', '--write'], {
      env,
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /Helix was not found: neither `hx` nor `helix` is on the PATH/);
    assert.doesNotMatch(run.stderr, /ENOENT/);
    assert.ok(!existsSync(path.join(env.XDG_CONFIG_HOME as string, 'helix')));
  } finally {
    sandbox.remove();
  }
});
