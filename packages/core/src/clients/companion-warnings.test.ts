import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClaudeSettings } from './claude-settings.js';
import type { CliSettings } from './cli-settings.js';
import {
  warningsFor,
  type OtherClaudeCompanion,
  type WarningFacts,
  type WarningInput,
} from './companion-warnings.js';
import { discoveryLocations } from './discovery-rules.js';

/** The rules alone, from facts made up here: Claude Code's part. */

const input: WarningInput = {
  env: { HOME: '/home/u', SHELL: '/bin/bash' },
  workspaceFolders: ['/w'],
  port: 4100,
  container: {},
  tandem: 'tandem',
  ownTerminals: true,
  showsDiffs: true,
};

const quietCli: CliSettings = {
  ideMode: { enabled: true, layers: [] },
  approvalMode: { mode: 'default', showsDiffs: true },
};

const asking: ClaudeSettings = {
  installed: true,
  mode: 'default',
  showsDiffs: true,
  userFile: '/home/u/.claude/settings.json',
};

function facts(
  claude: Partial<ClaudeSettings>,
  companions: OtherClaudeCompanion[] = [],
): WarningFacts {
  return {
    locations: discoveryLocations(input.env, '/w'),
    settings: { gemini: quietCli, qwen: quietCli },
    others: [],
    claude: { ...asking, ...claude },
    claudeCompanions: companions,
  };
}

const codes = (warnings: { code: string; cli?: string }[]) =>
  warnings.map((warning) => `${warning.code}:${warning.cli}`);

const vscode: OtherClaudeCompanion = {
  port: 30001,
  pid: 77,
  ideName: 'Visual Studio Code',
  folders: ['/w'],
};

describe('Claude Code warnings', () => {
  test('a permission mode that writes without asking: the flag, and the file that decides', () => {
    const [byDefault] = warningsFor(input, facts({ mode: 'auto', showsDiffs: false }));
    assert.equal(byDefault?.code, 'no-diffs');
    assert.equal(byDefault?.cli, 'claude');
    assert.match(
      byDefault!.message,
      /permission mode "auto" \(the default of its newest releases\)/,
    );
    assert.match(byDefault!.fix, /--permission-mode default/);
    assert.match(
      byDefault!.fix,
      /\{"permissions": \{"defaultMode": "default"\}\} in \/home\/u\/\.claude\/settings\.json/,
    );
    const local = { scope: 'local' as const, path: '/w/.claude/settings.local.json' };
    const [fromFolder] = warningsFor(
      input,
      facts({
        mode: 'acceptEdits',
        showsDiffs: false,
        decidedBy: { ...local, defaultMode: 'acceptEdits' },
      }),
    );
    assert.match(
      fromFolder!.message,
      /"acceptEdits" \(set in \/w\/\.claude\/settings\.local\.json\)/,
    );
    // The folder's file outranks the user's: setting it there would change nothing.
    assert.match(fromFolder!.fix, /in \/w\/\.claude\/settings\.local\.json\.$/);
    const [versioned] = warningsFor(
      input,
      facts({ mode: 'auto', showsDiffs: false, version: '2.1.332' }),
    );
    assert.match(versioned!.message, /the default of Claude Code 2\.1\.332/);
    // An editor that shows no diffs loses nothing to it.
    assert.deepEqual(
      warningsFor({ ...input, showsDiffs: false }, facts({ mode: 'auto', showsDiffs: false })),
      [],
    );
  });

  test('diffTool "terminal": where it is set, and /config to change it', () => {
    const [warning] = warningsFor(input, facts({ terminalDiffTool: '/home/u/.claude.json' }));
    assert.equal(warning?.code, 'terminal-diffs');
    assert.match(warning!.message, /diffTool in \/home\/u\/\.claude\.json/);
    assert.match(warning!.fix, /\/config .* "Diff tool" to auto/);
  });

  test("another companion's lock on the folder: how to reach this editor, how to stop that one", () => {
    const nvim = { ...vscode, port: 30002, ideName: 'Neovim' };
    const emacs = { ...vscode, port: 30003, ideName: 'Emacs' };
    const warnings = warningsFor(input, facts({}, [vscode, nvim, emacs]));
    assert.deepEqual(codes(warnings), [
      'shared-folder:claude',
      'shared-folder:claude',
      'shared-folder:claude',
    ]);
    const [first, second, third] = warnings;
    assert.match(first!.message, /Visual Studio Code \(PID 77, port 30001, folder \/w\)/);
    assert.match(first!.fix, /this editor's terminal/);
    assert.match(first!.fix, /eval "\$\(tandem env --port 4100\)"/);
    assert.match(first!.fix, /disable Anthropic's Claude Code extension/);
    assert.match(second!.fix, /claudecode\.nvim/);
    assert.match(third!.fix, /claude-code-ide\.el/);
    const serve = warningsFor({ ...input, ownTerminals: false }, facts({}, [vscode]));
    assert.doesNotMatch(serve[0]!.fix, /this editor's terminal/);
  });

  test('someone without Claude Code hears nothing about it', () => {
    const none = facts(
      {
        installed: false,
        mode: 'auto',
        showsDiffs: false,
        terminalDiffTool: '/home/u/.claude.json',
      },
      [vscode],
    );
    assert.deepEqual(warningsFor(input, none), []);
    assert.deepEqual(warningsFor(input, facts({})), []);
  });

  test('a companion that leaves Claude Code to another says nothing about it', () => {
    const leaving = { ...input, servesClaude: false };
    assert.deepEqual(
      warningsFor(leaving, facts({ mode: 'auto', showsDiffs: false }, [vscode])),
      [],
    );
  });
});
