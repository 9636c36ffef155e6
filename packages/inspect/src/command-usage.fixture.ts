/** Test-only: how every command of this package answers a wrong command line and `--help`. */
import assert from 'node:assert/strict';

type Run = (argv: string[]) => Promise<{ status: number; stdout: string; stderr: string }>;

/**
 * Each of `mistakes` exits 2 with `tandem NAME`'s usage on stderr; `--help` and `-h` exit 0 with
 * it on stdout, which is returned.
 */
export async function assertUsage(name: string, run: Run, mistakes: string[][]): Promise<string> {
  const usage = new RegExp(`^Usage: tandem ${name}`, 'm');
  for (const argv of mistakes) {
    const { status, stderr } = await run(argv);
    assert.equal(status, 2, argv.join(' '));
    assert.match(stderr, usage);
  }
  const help = await run(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, usage);
  assert.deepEqual(await run(['-h']), help);
  return help.stdout;
}
