import { folderCommand, portNumber, UsageError } from '@tandem/command';
import type { ClientKind } from '../doctor/prediction.js';
import type { CompanionAddress } from './check-client.js';
import {
  buildReport,
  type CheckReport,
  type CheckResult,
  type CheckSection,
  type CheckTarget,
} from './check-report.js';
import { runClaudeChecks } from './claude-check-run.js';
import { checkDiffs } from './diff-checks.js';
import { checkDiscovery } from './discovery-checks.js';
import { Person } from './person.js';
import { renderCheckReport } from './report-text.js';
import { checkSecurity } from './security-checks.js';
import { checkSessions } from './session-checks.js';
import { checkTransport } from './transport-checks.js';

export const checkUsage = `Usage: tandem check [--cwd DIR | --port N --token T] [--cli gemini|qwen|both|claude]
                    [--interactive] [--time-limit SECONDS] [--json]

Checks an IDE companion (any editor's, not only Tandem's) against what Gemini CLI and Qwen Code
really need, check by check, and says for each failure what the real CLI then does and how to
fix it. It finds the companion each CLI would use from DIR (the same prediction as
\`tandem doctor\`), or takes the one on --port, and checks:

  Discovery   each file's place, name, fields and types, ideInfo, a live ppid for Qwen Code,
              owner and mode
  Security    no token, a wrong token, a foreign Host, an Origin, a CORS preflight, an oversized
              body without the token, a body that is not JSON; still serving afterwards
  Transport   initialize with each client's protocol version, the GET event stream, both diff
              tools, a first context update, every notification valid
  Sessions    two sessions at once, each tool call answered on its own session, a session freed
              once its client is gone
  Diffs       with --interactive: you accept, edit, reject, empty and quit in the editor when
              asked on stderr; the kit acts as the CLI and judges the answers

Every session it opens is closed again. Diffs open on files that do not exist in DIR; nothing
is written there.

With --cli claude it checks a Claude Code companion instead, as the Claude Code binary needs it:

  Discovery   the lock file Claude Code takes from DIR (<CLAUDE_CONFIG_DIR or ~/.claude>/ide/
              <port>.lock): its fields, a live pid, transport "ws", 0600 in a 0700 folder
  Security    upgrades without the token, with a wrong one, with an Origin, with a foreign Host
              (the class of CVE-2025-52882); still serving afterwards
  Transport   the WebSocket upgrade with subprotocol mcp, initialize, openDiff, close_tab and
              getDiagnostics listed, getDiagnostics' answer
  Selection   with --interactive: you select lines; selection_changed as Claude Code reads it
  Diffs       with --interactive: you accept with an edit (FILE_SAVED and your text), reject
              (DIFF_REJECTED, never TAB_CLOSED) and quit; openDiff waits for you; close_tab
              closes a diff answered in the terminal

Options:
  --cwd DIR           the folder a CLI would run in (default: the current directory)
  --port N            check the companion on 127.0.0.1:N instead (discovery is not checked)
  --token T           the token to send with --port (Claude Code: the lock's authToken)
  --cli NAME          gemini, qwen, both (the default) or claude
  --interactive       also check diffs, with you at the editor
  --time-limit S      how long each interactive step waits (default: 120)
  --json              print the report as JSON (see below)
  -h, --help          show this help

Exit status: 0 when no check that breaks a real CLI failed (failures marked unsafe or advice
do not count); 1 when one did; 2 on a usage error.

--json prints one object (version 1; fields may be added, none will change meaning):
  version      1
  dir          DIR, absolute
  clients      the CLIs checked: gemini, qwen, or claude
  interactive  whether the diff checks ran
  targets[]    {port, chosenBy: [gemini|qwen|claude] | "port option", ideInfo?, files[]}
  sections[]   {name: Discovery|Security|Transport|Sessions|Selection|Diffs, checks[]}
    checks[]   {id, title, status: pass|fail|skip, severity: breaks|unsafe|advice,
                clients?, detail, effect?, fix?}   (effect and fix on failures)
  counts       {pass, fail, skip}
  ok           no check of severity breaks failed`;

export const checkCommand = folderCommand(
  'check',
  checkUsage,
  {
    port: { type: 'string' },
    token: { type: 'string' },
    cli: { type: 'string' },
    interactive: { type: 'boolean' },
    'time-limit': { type: 'string' },
    json: { type: 'boolean' },
  },
  async (values, dir, io) => {
    const clients = clientsOf(values.cli);
    const port = values.port === undefined ? undefined : portNumber(values.port);
    if (port !== undefined && values.cwd !== undefined) {
      throw new UsageError('give either --cwd or --port, not both');
    }
    if (values.token !== undefined && port === undefined) {
      throw new UsageError('--token goes with --port');
    }
    const limitMs = secondsOf(values['time-limit'] ?? '120') * 1000;
    const person = values.interactive ? new Person(io, limitMs) : undefined;
    try {
      const options = {
        dir,
        env: io.env,
        ...(port !== undefined && {
          address: { port, ...(values.token !== undefined && { token: values.token }) },
        }),
        ...(person && { person }),
      };
      const report =
        clients === 'claude'
          ? await runClaudeChecks(options)
          : await runChecks({ ...options, clients });
      io.stdout.write(
        values.json ? `${JSON.stringify(report, null, 2)}\n` : renderCheckReport(report),
      );
      return report.ok ? 0 : 1;
    } finally {
      person?.close();
    }
  },
);

export interface CheckOptions {
  dir: string;
  env: NodeJS.ProcessEnv;
  clients: ClientKind[];
  /** The companion given by `--port`; otherwise found as the CLIs find it. */
  address?: CompanionAddress;
  /** Present with `--interactive`. */
  person?: Person;
}

/** Every check, in order: discovery, then for each companion found the rest. */
export async function runChecks(options: CheckOptions): Promise<CheckReport> {
  const { dir, clients, person } = options;
  const discovery: CheckResult[] = [];
  let targets: (CheckTarget & CompanionAddress)[];
  if (options.address) {
    targets = [{ ...options.address, chosenBy: 'port option', files: [] }];
  } else {
    const found = await checkDiscovery(dir, options.env, clients);
    discovery.push(...found.checks);
    targets = found.targets;
  }
  const sections: CheckSection[] = [
    { name: 'Discovery', checks: discovery },
    { name: 'Security', checks: [] },
    { name: 'Transport', checks: [] },
    { name: 'Sessions', checks: [] },
    { name: 'Diffs', checks: [] },
  ];
  const [, security, transport, sessions, diffs] = sections as [
    CheckSection,
    CheckSection,
    CheckSection,
    CheckSection,
    CheckSection,
  ];
  for (const target of targets) {
    const address = { port: target.port, ...(target.token && { token: target.token }) };
    // Gemini CLI's and Qwen Code's discovery chose it: never Claude Code, checked on its own.
    const kinds = target.chosenBy === 'port option' ? clients : (target.chosenBy as ClientKind[]);
    security.checks.push(...(await checkSecurity(address)));
    for (const kind of kinds) {
      const { checks, client } = await checkTransport(address, kind);
      transport.checks.push(...checks);
      await client?.end();
    }
    sessions.checks.push(...(await checkSessions(address, dir)));
    if (person && kinds[0]) {
      diffs.checks.push(...(await checkDiffs(address, kinds[0], dir, target.files, person)));
    }
  }
  return buildReport(
    {
      dir,
      clients,
      interactive: person !== undefined,
      targets: targets.map(({ token: _token, ...target }) => target),
    },
    sections,
  );
}

/** The CLIs of `--cli`: Claude Code's companion is checked on its own. */
function clientsOf(value: string | undefined): ClientKind[] | 'claude' {
  if (value === undefined || value === 'both') return ['gemini', 'qwen'];
  if (value === 'gemini' || value === 'qwen') return [value];
  if (value === 'claude') return value;
  throw new UsageError(`--cli takes gemini, qwen, both or claude, not ${JSON.stringify(value)}`);
}

function secondsOf(value: string): number {
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds < 1) {
    throw new UsageError(`--time-limit takes a number of seconds, not ${JSON.stringify(value)}`);
  }
  return seconds;
}
