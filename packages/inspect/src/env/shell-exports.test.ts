import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderExports, shellFromEnv, type Shell } from './shell-exports.js';
import { evaluate, needShell, type ShellProgram } from '@tandem/testkit';

const AWKWARD = [
  "it's",
  'a\\b\\\\c',
  '$HOME and `date` and $(date)',
  'two\nlines',
  '"double" \'single\'',
  '  spaced  ',
  '; rm -rf / #',
  '*?[a]{b,c}~',
  'ünïcödé 日本',
  "\\'",
  '',
];

/** The syntax each real shell reads: dash (sh) reads what tandem prints for bash. */
const PROGRAMS: [ShellProgram, Shell][] = [
  ['bash', 'bash'],
  ['dash', 'bash'],
  ['zsh', 'zsh'],
  ['fish', 'fish'],
];

for (const [program, syntax] of PROGRAMS) {
  test(`${program} reads back every value exactly, and unsets what has no value`, (t) => {
    if (!needShell(t, program)) return;
    const variables: Record<string, string | undefined> = { GONE: undefined, NEVER_SET: undefined };
    AWKWARD.forEach((value, index) => (variables[`V${index}`] = value));
    const code = renderExports(variables, syntax);
    const names = Object.keys(variables);
    const result = evaluate(program, code, names, { GONE: 'left over' });
    assert.deepEqual(result, variables);
  });
}

test('the shell comes from $SHELL; anything but zsh and fish reads bash syntax', () => {
  assert.equal(shellFromEnv({ SHELL: '/usr/bin/zsh' }), 'zsh');
  assert.equal(shellFromEnv({ SHELL: '/opt/homebrew/bin/fish' }), 'fish');
  assert.equal(shellFromEnv({ SHELL: '/bin/bash' }), 'bash');
  assert.equal(shellFromEnv({ SHELL: '/bin/dash' }), 'bash');
  assert.equal(shellFromEnv({}), 'bash');
});
