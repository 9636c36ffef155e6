import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DISCOVERY_KINDS,
  discoveryContent,
  discoveryFilePath,
  discoveryLocations,
  geminiIdePidFromEnv,
  terminalVariables,
  idePidAboveShell,
  type DiscoveryKind,
} from './discovery-rules.js';

describe('discovery rules', () => {
  it('find the folders as the CLIs do: TMPDIR as os.tmpdir() reads it, QWEN_HOME with ~', () => {
    const env = { HOME: '/home/ada', TMPDIR: '/scratch/', QWEN_HOME: '~/q' };
    const at = discoveryLocations(env, '/work');
    assert.equal(at.tmpDir, '/scratch');
    assert.equal(at.geminiIdeDir, '/scratch/gemini/ide');
    assert.equal(at.qwenIdeDir, '/home/ada/q/ide');
    assert.equal(
      discoveryLocations({ HOME: '/h', QWEN_HOME: 'rel' }, '/work').qwenHome,
      '/work/rel',
    );
    assert.equal(discoveryLocations({ HOME: '/h' }, '/work').qwenHome, '/h/.qwen');
    assert.equal(discoveryLocations({ HOME: '/h' }, '/work').tmpDir, '/tmp');
  });

  it('resolve QWEN_HOME written ~\\q8 as Qwen Code 0.24 does: in the home, either slash a separator', () => {
    const qwenHome = (value: string) =>
      discoveryLocations({ HOME: '/home/ada', QWEN_HOME: value }, '/work').qwenHome;
    assert.equal(qwenHome('~\\q8'), '/home/ada/q8');
    assert.equal(qwenHome('~/a\\b//c'), '/home/ada/a/b/c');
    assert.equal(qwenHome('~'), '/home/ada');
    assert.equal(qwenHome('~/'), '/home/ada');
    assert.equal(qwenHome('~ada/q'), '/work/~ada/q');
    assert.equal(qwenHome('a\\b'), '/work/a\\b');
    assert.equal(qwenHome('/abs/q'), '/abs/q');
  });

  it('name every kind of file so that its own pattern reads the numbers back', () => {
    const at = discoveryLocations({ HOME: '/h', TMPDIR: '/t' }, '/w');
    for (const kind of Object.keys(DISCOVERY_KINDS) as DiscoveryKind[]) {
      const rule = DISCOVERY_KINDS[kind];
      const path = discoveryFilePath(at, kind, { pid: 4242, port: 5151 });
      assert.ok(path.startsWith(`${at[rule.dir]}/`), path);
      const match = rule.pattern.exec(path.slice(at[rule.dir].length + 1));
      assert.ok(match, `${kind}: ${path}`);
      const numbers = rule.numbers(match);
      if (numbers.pid !== undefined) assert.equal(numbers.pid, 4242);
      if (numbers.port !== undefined) assert.equal(numbers.port, 5151);
    }
  });

  it("write Qwen's workspace as a JSON array when a folder holds the delimiter", () => {
    const data = {
      port: 1,
      authToken: 't',
      ideInfo: { name: 'n', displayName: 'N' },
      editorPid: 7,
    };
    const plain = discoveryContent('qwen-lock', { ...data, workspaceFolders: ['/a', '/b'] });
    assert.equal(plain.workspacePath, '/a:/b');
    assert.equal(plain.ppid, 7);
    const odd = discoveryContent('qwen-lock', { ...data, workspaceFolders: ['/a:b'] });
    assert.equal(odd.workspacePath, JSON.stringify(['/a:b']));
    assert.equal(discoveryContent('gemini', { ...data, workspaceFolders: ['/a'] }).ppid, undefined);
  });

  it('read GEMINI_CLI_IDE_PID as Gemini CLI does', () => {
    assert.equal(geminiIdePidFromEnv({ GEMINI_CLI_IDE_PID: '1234' }), 1234);
    assert.equal(geminiIdePidFromEnv({ GEMINI_CLI_IDE_PID: '12x' }), 12);
    assert.equal(geminiIdePidFromEnv({ GEMINI_CLI_IDE_PID: '0' }), undefined);
    assert.equal(geminiIdePidFromEnv({ GEMINI_CLI_IDE_PID: 'abc' }), undefined);
    assert.equal(geminiIdePidFromEnv({}), undefined);
  });

  it("take the shell's grandparent as the IDE, unless that is init", () => {
    assert.equal(idePidAboveShell(100, 50), 50);
    assert.equal(idePidAboveShell(100, 1), 100);
    assert.equal(idePidAboveShell(100, undefined), 100);
  });

  it("give terminals the variables of the CLIs served, container rule included with Gemini's", () => {
    const inContainer = { marker: '/.dockerenv' };
    const ports = { mcp: 41877, claude: 41878 };
    const both = terminalVariables(ports, ['/w'], 7, inContainer, ['gemini', 'qwen']);
    assert.equal(both.QWEN_CODE_IDE_SERVER_PORT, '41877');
    assert.equal(both.GEMINI_CLI_IDE_PID, '7');
    const geminiOnly = terminalVariables(ports, ['/w'], 7, inContainer, ['gemini']);
    assert.equal(geminiOnly.QWEN_CODE_IDE_SERVER_PORT, undefined);
    assert.deepEqual(
      Object.keys(geminiOnly).filter((name) => !name.startsWith('GEMINI_CLI_')),
      Object.keys(both).filter((name) => !/^(GEMINI_CLI_|QWEN_CODE_)/.test(name)),
    );
    const qwenOnly = terminalVariables(ports, ['/w'], 7, inContainer, ['qwen']);
    assert.deepEqual(Object.keys(qwenOnly).sort(), [
      'QWEN_CODE_IDE_SERVER_PORT',
      'QWEN_CODE_IDE_WORKSPACE_PATH',
    ]);
  });

  it("give terminals Claude Code's port, its own listener's, by default, and no extension install", () => {
    const all = terminalVariables({ mcp: 41877, claude: 41878 }, ['/w'], 7);
    assert.equal(all.CLAUDE_CODE_SSE_PORT, '41878');
    assert.equal(all.GEMINI_CLI_IDE_SERVER_PORT, '41877');
    const claudeOnly = terminalVariables({ mcp: 41877, claude: 41878 }, ['/w'], 7, {}, ['claude']);
    // Its binary reads the variable as a flag: "1", "true", "yes" or "on".
    assert.deepEqual(claudeOnly, {
      CLAUDE_CODE_SSE_PORT: '41878',
      CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: '1',
    });
  });
});
