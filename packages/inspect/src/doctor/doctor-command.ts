import { folderCommand, UsageError } from '@tandem/command';
import { diagnose } from './diagnosis.js';
import type { ClientKind } from './prediction.js';
import { renderReport } from './report-text.js';

export const doctorUsage = `Usage: tandem doctor [--cwd DIR] [--cli gemini|qwen|claude] [--json]

Explains what Gemini CLI and Qwen Code (and Claude Code, when it is installed) would do if
started in DIR from this terminal — which
editor they would connect to, or why not ("IDE integration is not supported", "Directory
mismatch", "Failed to connect") — and how to fix it. It reads every discovery file where each
CLI looks, checks that its editor is running and that its port accepts its token (a short MCP
handshake, closed at once), repeats each CLI's own choice of file, and reads IDE mode and the
approval mode (only "default" shows diffs in the editor) from the CLIs' settings. For Claude
Code: the lock files it reads and those it deletes, whether it connects by itself
(CLAUDE_CODE_SSE_PORT), with --ide or only through /ide, its permission mode and diffTool.
It changes nothing.

Options:
  --cwd DIR     the folder the CLI would run in (default: the current directory)
  --cli NAME    check only gemini, qwen or claude (default: gemini and qwen, and claude
                when installed)
  --json        print the report as JSON (see below)
  -h, --help    show this help

Exit status: 0 when every CLI checked would connect; 1 when one would not (IDE mode off, no
editor for DIR, or its companion unreachable); 2 on a usage error.

--json prints one object (version 1; fields may be added, none will change meaning):
  version     1
  dir         DIR as given, absolute;  realDir  DIR with symbolic links resolved
  locations   {tmpDir, geminiIdeDir, qwenHome, qwenIdeDir, geminiHome}
  environment {variables: {NAME: value} of the discovery variables set, termProgram?,
               container?: {marker, localOverride?, geminiHost}}
  files[]     every discovery file: {path, kind: gemini|gemini-pid|qwen-lock|qwen-tmp|
              qwen-legacy, readBy, port?, workspacePath?, ideInfo?, hasToken, tandem,
              processes: [{pid, role: editor|writer|ide, alive}], probe?: {outcome: ok|
              unauthorized|forbidden|refused|unresolvable|timeout|not-mcp, detail, tools?},
              live, staleBecause?, workspace?: {outcome: match|mismatch|missing|no-folder|
              invalid, roots?, matchedRoot?, why?}}
  clients[]   per CLI: {client: gemini|qwen, name, ideMode: {enabled, decidedBy?, layers},
              approvalMode: {mode, showsDiffs, decidedBy? or version?},
              idePid: {pid, source}, candidates: [{path, rank, workspace?, note}],
              chosenFile?, choice, detectedIde?: {name, displayName, from}, workspace?,
              attempts: [{host, port, via, tokenSent, probe}], connected, port?, status,
              diffing, deletes?, crash?, connects}
              (connected: its IDE client would connect; connects: and IDE mode is on;
              status: what its /ide status would say)
  claude?     {installed, lockFolders, locks: [{path, port, pid?, alive, workspaceFolders,
              ideName?, tandem, error?, containsFolder, note}], ssePort?, connection:
              by-itself|with-ide-flag|by-ide-command|none, port?, listed, deletes, choice,
              settings: {installed, mode, showsDiffs, decidedBy?, version?, userFile,
              terminalDiffTool?}}
  problems[]  {severity: error|warning|info, code, client?, message, fix?}
  ok          every CLI checked would connect (Claude Code: at least through /ide)`;

export const doctorCommand = folderCommand(
  'doctor',
  doctorUsage,
  { cli: { type: 'string' }, json: { type: 'boolean' } },
  async (values, dir, io) => {
    const cli = values.cli;
    if (cli !== undefined && cli !== 'gemini' && cli !== 'qwen' && cli !== 'claude') {
      throw new UsageError(`--cli takes gemini, qwen or claude, not ${JSON.stringify(cli)}`);
    }
    const clients: ClientKind[] =
      cli === undefined ? ['gemini', 'qwen'] : cli === 'claude' ? [] : [cli];
    const claude = cli === undefined ? 'if-installed' : cli === 'claude';
    const report = await diagnose({ dir, env: io.env, clients, claude });
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    return report.ok ? 0 : 1;
  },
);
