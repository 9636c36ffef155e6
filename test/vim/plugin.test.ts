/**
 * Vim's own assertions (`assert_*`, `v:errors`) in `vim -es` scripts, where no screen is
 * needed: the help file, the commands, the settings' errors, and the conversions the plugin
 * makes (byte columns to characters, whole texts to lines). No sidecar runs here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { installed, REPO_ROOT, Sandbox, vimArgs, vimSkipReason } from '@tandem/testkit';

const skip = vimSkipReason();

/** Runs `script` in `vim -es` with Tandem loaded; returns what `v:errors` held. */
function vimScript(sandbox: Sandbox, script: string, before: string[] = []): string[] {
  const file = path.join(sandbox.root, 'script.vim');
  const errors = path.join(sandbox.root, 'errors.json');
  writeFileSync(file, `${script}\ncall writefile([json_encode(v:errors)], '${errors}')\nqa!\n`);
  writeFileSync(errors, '["the script did not finish"]');
  const beforeArgs = before.flatMap((line) => ['--cmd', line]);
  const [program, ...args] = vimArgs('--cmd', 'let g:tandem_autostart = 0', ...beforeArgs);
  const run = spawnSync(program!, [...args, '-es', '-S', file], {
    cwd: sandbox.workspace,
    env: sandbox.env(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.error, undefined);
  return JSON.parse(readFileSync(errors, 'utf8')) as string[];
}

describe('Tandem in vim -es', { skip }, () => {
  const sandbox = new Sandbox();
  after(() => sandbox.remove());

  test('the help: :helptags finds no tag twice, every link of tandem-vim.txt leads somewhere, :help tandem leads to it', () => {
    const doc = path.join(sandbox.root, 'runtime', 'doc');
    mkdirSync(doc, { recursive: true });
    cpSync(path.join(REPO_ROOT, 'doc'), doc, { recursive: true });
    const errors = vimScript(
      sandbox,
      `
      set rtp^=${path.dirname(doc)}
      try
        helptags ${doc}
      catch
        call assert_report(v:exception)
      endtry
      let text = join(readfile('${doc}/tandem-vim.txt'), "\\n")
      let links = []
      call substitute(text, '|\\([^| \\t]\\+\\)|', '\\=add(links, submatch(1))', 'g')
      call assert_true(len(links) > 20, 'links found: ' . len(links))
      for link in links
        try
          execute 'help' escape(link, ' ')
          helpclose
        catch
          call assert_report('no help for |' . link . '|: ' . v:exception)
        endtry
      endfor
      help tandem-vim
      call assert_match('tandem-vim.txt$', expand('%'))
      " :help tandem is the page both editors share a tag with: its first lines lead Vim users here.
      help tandem
      call assert_match('|tandem-vim|', join(getline(1, 5), "\n"))
      `,
    );
    assert.deepEqual(errors, []);
  });

  test('the commands, and :Tandem completes the CLIs', () => {
    const errors = vimScript(
      sandbox,
      `
      let names = ['Tandem', 'TandemStart', 'TandemStop', 'TandemStatus', 'TandemAccept']
      let names += ['TandemReject', 'TandemDoctor', 'TandemEnv']
      for name in names
        call assert_equal(2, exists(':' . name), name)
      endfor
      call assert_equal(['claude', 'gemini', 'probe', 'qwen', 'send'], getcompletion('Tandem ', 'cmdline'))
      call assert_equal(['qwen'], getcompletion('Tandem q', 'cmdline'))
      call assert_equal([], getcompletion('Tandem gemini ', 'cmdline'))
      `,
      [`let g:tandem_clis = {'probe': ['true']}`],
    );
    assert.deepEqual(errors, []);
  });

  test('a bad setting is named in the message, and nothing starts', () => {
    const errors = vimScript(
      sandbox,
      `
      let g:tandem_log_level = 'loud'
      let message = execute('TandemStart')
      call assert_match("g:tandem_log_level: expected 'debug', 'info', 'warn' or 'error', got 'loud'", message)
      unlet g:tandem_log_level
      let g:tandem_clis = {'x': 'not a list'}
      call assert_match('g:tandem_clis: expected a list of strings for x', execute('Tandem x'))
      `,
    );
    assert.deepEqual(errors, []);
  });

  test('an unknown CLI and an uninstalled one are errors, not stack traces', () => {
    const errors = vimScript(
      sandbox,
      `
      call assert_match('unknown CLI "nope": :Tandem takes one of claude, gemini, missing, qwen', execute('Tandem nope'))
      call assert_match('.no-such-program-here. is not installed or not on PATH', execute('Tandem missing'))
      call assert_notmatch('E\\d\\+:', execute('messages'))
      `,
      [`let g:tandem_cmd = ['true']`, `let g:tandem_clis = {'missing': ['no-such-program-here']}`],
    );
    assert.deepEqual(errors, []);
  });

  test('a Node.js that is not installed: the state, the status line and the error say so', () => {
    const errors = vimScript(
      sandbox,
      `
      let g:tandem_node = 'no-such-node'
      let g:tandem_cmd = ['no-such-node', 'bridge']
      TandemStart
      let status = tandem#status()
      call assert_equal('failed', status.state)
      call assert_match('no-such-node. is not an executable', status.error)
      call assert_equal('Tandem: failed', tandem#statusline())
      `,
    );
    assert.deepEqual(errors, []);
  });

  test('cursor columns: bytes to characters, 1-based', () => {
    const errors = vimScript(
      sandbox,
      `
      let line = 'héllo 文件 x'
      call assert_equal(15, stridx(line, 'x') + 1, 'the byte column of x')
      call assert_equal(10, tandem#cursor#Character(line, 15))
      call assert_equal(1, tandem#cursor#Character(line, 1))
      call assert_equal(3, tandem#cursor#Character(line, 4), 'after é')
      call assert_equal(1, tandem#cursor#Character('', 1))
      `,
    );
    assert.deepEqual(errors, []);
  });

  test('texts to lines and back keep the final newline and CRLF endings', () => {
    const errors = vimScript(
      sandbox,
      `
      for text in ["a\\nb\\n", "a\\nb", "a\\r\\nb\\r\\n", "", "\\n", "one\\r\\ntwo\\nthree\\n"]
        let [lines, shape] = tandem#text#to_lines(text)
        call assert_equal(text, tandem#text#from_lines(lines, shape), string(text))
      endfor
      call assert_equal(['a', 'b'], tandem#text#to_lines("a\\r\\nb\\r\\n")[0])
      `,
    );
    assert.deepEqual(errors, []);
  });

  test('files only: terminals, help, scratch and unnamed buffers are not files', () => {
    writeFileSync(path.join(sandbox.workspace, 'real.txt'), 'x\n');
    const errors = vimScript(
      sandbox,
      `
      edit real.txt
      call assert_equal(getcwd() . '/real.txt', tandem#context#file_path(bufnr('%')))
      enew
      call assert_equal('', tandem#context#file_path(bufnr('%')))
      setlocal buftype=nofile
      file scratch
      call assert_equal('', tandem#context#file_path(bufnr('%')))
      help
      call assert_equal('', tandem#context#file_path(bufnr('%')))
      edit not-written-yet.txt
      call assert_equal('', tandem#context#file_path(bufnr('%')))
      `,
    );
    assert.deepEqual(errors, []);
  });

  test(
    'in Neovim, the Vim plugin file does nothing',
    { skip: !installed('nvim') && 'nvim is not installed' },
    () => {
      const run = spawnSync(
        'nvim',
        [
          '--clean',
          '--headless',
          '--cmd',
          `set rtp^=${REPO_ROOT}`,
          '-c',
          `lua io.stdout:write(vim.fn.exists('g:loaded_tandem_vim') .. ' ' .. vim.fn.exists(':TandemAccept'))`,
          '-c',
          'qa!',
        ],
        { env: sandbox.env(), encoding: 'utf8', timeout: 60_000 },
      );
      // The Lua plugin defines the commands; the Vim file stopped at its first line.
      assert.equal(run.stdout.trim(), '0 2');
    },
  );
});
