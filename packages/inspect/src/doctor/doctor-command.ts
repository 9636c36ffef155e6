import { folderCommand, UsageError } from '@tandem/command';
import { diagnose } from './diagnosis.js';
import type { ClientKind } from './prediction.js';
import { renderReport } from './report-text.js';

export const doctorUsage = `Usage: tandem doctor [--cwd DIR] [--cli gemini|qwen] [--json]

Explains what Gemini CLI and Qwen Code would do if started in DIR from this terminal — which
editor they would connect to, or why not ("IDE integration is not supported", "Directory
mismatch", "Failed to connect") — and how to fix it. It reads every discovery file where each
CLI looks, checks that its editor is running and that its port accepts its token (a short MCP
handshake, closed at once), repeats each CLI's own choice of file, and reads IDE mode and the
approval mode (only "default" shows diffs in the editor) from the CLIs' settings. It changes
nothing.

Options:
  --cwd DIR     the folder the CLI would run in (default: the current directory)
  --cli NAME    check only gemini or only qwen (default: both)
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
  problems[]  {severity: error|warning|info, code, client?, message, fix?}
  ok          every CLI checked would connect`;

export const doctorCommand = folderCommand(
  'doctor',
  doctorUsage,
  { cli: { type: 'string' }, json: { type: 'boolean' } },
  async (values, dir, io) => {
    if (values.cli !== undefined && values.cli !== 'gemini' && values.cli !== 'qwen') {
      throw new UsageError(`--cli takes gemini or qwen, not ${JSON.stringify(values.cli)}`);
    }
    const clients: ClientKind[] = values.cli ? [values.cli] : ['gemini', 'qwen'];
    const report = await diagnose({ dir, env: io.env, clients });
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    return report.ok ? 0 : 1;
  },
);
