import {
  approvalModeOrigin,
  CLAUDE_PORT_VARIABLE,
  claudeSettingsWarnings,
  stopOtherClaudeCompanion,
} from '@tandem/core';
import type { ClaudePrediction } from './claude-prediction.js';
import type { ClientReport, EnvironmentReport, FileReport, Problem } from './doctor-report.js';
import { editorClaimsOf } from './ide-detection.js';
import type { ConnectionAttempt } from './prediction.js';

interface ProblemInput {
  dir: string;
  env: NodeJS.ProcessEnv;
  files: FileReport[];
  clients: ClientReport[];
  environment: EnvironmentReport;
  /** How the user runs Tandem, for the commands the fixes print. */
  tandem: string;
  /** Discovery folders another user could change: Tandem's companions write nothing there. */
  unsafeFolders: { dir: string; why: string }[];
  claude?: ClaudePrediction;
}

function startCompanion(input: ProblemInput): string {
  return `Open this folder in an editor with its companion running (Neovim with the Tandem plugin, or \`${input.tandem} serve ${shellWord(input.dir)}\`), then start the CLI: it looks for the editor once, when it starts.`;
}

/** The problems a report shows, each with a concrete fix; errors first. */
export function findProblems(input: ProblemInput): Problem[] {
  const problems = [
    ...input.clients.flatMap((client) => clientProblems(client, input)),
    ...environmentProblems(input),
    ...staleFileProblems(input.files),
    ...input.unsafeFolders.map(unsafeFolderProblem),
    ...(input.claude ? claudeProblems(input.claude, input) : []),
  ];
  const order = { error: 0, warning: 1, info: 2 };
  return problems.sort((a, b) => order[a.severity] - order[b.severity]);
}

function clientProblems(client: ClientReport, input: ProblemInput): Problem[] {
  const problems: Problem[] = [];
  const add = (severity: Problem['severity'], code: string, message: string, fix?: string) =>
    problems.push({ severity, code, client: client.client, message, ...(fix && { fix }) });
  const name = client.name;
  if (!client.ideMode.enabled) {
    const where = client.ideMode.decidedBy
      ? `"ide.enabled" is false in ${client.ideMode.decidedBy.path}`
      : 'no settings file turns it on';
    add(
      'error',
      'ide-mode-off',
      `IDE mode is off in ${name} (${where}): it never looks for an editor.`,
      `Type /ide enable in ${name}, or set {"ide": {"enabled": true}} in ${userSettingsOf(client)}. ` +
        `If ${name} asks to install an extension for the editor, answer No (there is nothing to install; ` +
        `Yes fails and the question never comes back), then type /ide enable.`,
    );
  }
  if (client.diffing && !client.approvalMode.showsDiffs) {
    const { mode } = client.approvalMode;
    const [section, key] = (
      client.client === 'gemini' ? 'general.defaultApprovalMode' : 'tools.approvalMode'
    ).split('.');
    add(
      'warning',
      'no-diffs',
      `${name} starts in approval mode "${mode}" (${approvalModeOrigin(client.client, client.approvalMode)}): it writes edits without asking, so diffs will never be shown in the editor, though /ide status says "Connected".`,
      `${client.client === 'qwen' ? 'Type /approval-mode default in Qwen Code' : 'Start Gemini CLI with --approval-mode default'}, or set {"${section}": {"${key}": "default"}} in ${userSettingsOf(client)}.`,
    );
  }
  const connection = connectionProblem(client, input);
  if (connection) add('error', connection.code, connection.message, connection.fix);
  if (client.connected && !client.diffing) {
    add(
      'warning',
      'no-diff-tools',
      `The companion on port ${client.port} lists no openDiff/closeDiff tools: ${name} shows its diffs in the terminal only.`,
      'Update the editor companion, or use a Tandem companion.',
    );
  }
  if (client.connected) {
    const others = input.files.filter(
      (file) => file.live && file.port !== client.port && file.workspace?.outcome === 'match',
    );
    const ports = [...new Set(others.map((file) => file.port))];
    if (ports.length > 0) {
      add(
        'info',
        'several-editors',
        `${name} connects to port ${client.port}; the editor${ports.length > 1 ? 's' : ''} on port ${ports.join(', ')} also ${ports.length > 1 ? 'have' : 'has'} this folder open.`,
        `To choose one for this terminal: eval "$(${input.tandem} env --port ${ports[0]})" before starting ${name}.`,
      );
    }
  }
  return problems;
}

interface Found {
  code: string;
  message: string;
  fix: string;
}

function connectionProblem(client: ClientReport, input: ProblemInput): Found | undefined {
  const name = client.name;
  const chosen = client.chosenFile;
  if (client.crash) {
    return {
      code: 'malformed-discovery-file',
      message: client.crash,
      fix: 'Remove the malformed discovery file named above (or fix its workspacePath); a companion that is running rewrites its file when restarted.',
    };
  }
  const rejected = client.candidates.filter(
    (candidate) => candidate.workspace && candidate.workspace.outcome !== 'match',
  );
  const mismatches = rejected.filter((candidate) => candidate.workspace?.outcome === 'mismatch');
  const workspace = client.workspace;
  if (mismatches.length > 0 && (!chosen || workspace?.outcome === 'mismatch')) {
    const roots =
      workspace?.outcome === 'mismatch' && chosen ? workspace.roots : rootsOf(mismatches);
    return {
      code: 'directory-mismatch',
      message: `No editor has this folder (${input.dir}) open for ${name}: the open workspace${roots.length > 1 ? 's are' : ' is'} ${roots.join(', ')}. Both sides are compared after resolving symbolic links.${chosen ? '' : ` ${name} then finds no editor at all.`}`,
      fix: `Start ${name} inside ${roots.length > 1 ? 'one of those folders' : 'that folder'}, or open this folder (or a parent of it) in the editor.`,
    };
  }
  const noFolder = rejected.find((candidate) => candidate.workspace?.outcome === 'no-folder');
  if (noFolder && !chosen) return noFolderOpen(noFolder.path);
  if (!chosen && workspace?.outcome !== 'match') {
    return {
      code: 'no-companion',
      message: `${name} finds no discovery file for this folder${
        client.deletes ? ' (the lock files left are stale, and it deletes them)' : ''
      }, so it believes no editor is there ("IDE integration is not supported").`,
      fix: startCompanion(input),
    };
  }
  if (!client.detectedIde) {
    return {
      code: 'no-ide-info',
      message: `The discovery file ${name} picks (${chosen}) has no ideInfo {name, displayName}, and nothing in the environment names an editor ${name} knows: it says "IDE integration is not supported".`,
      fix: 'Update that companion so that its file carries ideInfo, or use a Tandem companion. Do not fake TERM_PROGRAM=vscode.',
    };
  }
  if (workspace?.outcome === 'no-folder') return noFolderOpen(chosen);
  if (workspace && workspace.outcome !== 'match') {
    return {
      code: 'no-companion',
      message: `${name} finds no discovery data for this folder.`,
      fix: startCompanion(input),
    };
  }
  if (!client.connected) {
    // The first attempt is the discovery file's; a port variable's comes after it.
    return failedAttempt(name, chosen, client.attempts[0], input);
  }
  return undefined;
}

function noFolderOpen(path: string | undefined): Found {
  return {
    code: 'no-folder-open',
    message: `The editor of ${path ?? 'the discovery data'} has no folder open.`,
    fix: 'Open a folder in the editor (for Neovim, :cd into it), then restart the CLI.',
  };
}

function failedAttempt(
  name: string,
  chosen: string | undefined,
  attempt: ConnectionAttempt | undefined,
  input: ProblemInput,
): Found {
  if (!attempt) {
    return {
      code: 'connection-failed',
      message: `${name} has no port to connect to${chosen ? ` (${chosen} names none)` : ''}.`,
      fix: `Restart the editor's companion so that it rewrites its discovery file.`,
    };
  }
  const where = `${attempt.host}:${attempt.port}`;
  const file = chosen ? ` ${chosen}` : ' the discovery file';
  switch (attempt.probe.outcome) {
    case 'unresolvable':
    case 'forbidden':
      if (attempt.host === 'host.docker.internal') return containerProblem(name, attempt, input);
      return {
        code: 'connection-refused',
        message: `The companion at ${where} refused ${name}'s request (${attempt.probe.detail}).`,
        fix: 'Restart the editor companion; if it is not Tandem, check that it accepts this host.',
      };
    case 'unauthorized':
      return {
        code: 'wrong-token',
        message: `The companion at ${where} refuses the token ${attempt.tokenSent ? `from${file}` : '(none was sent)'}: HTTP 401. The file is left over from an earlier companion on the same port, or was overwritten.`,
        fix: `Restart the editor's companion so it rewrites its file, and remove${file} if it stays behind.`,
      };
    case 'refused':
    case 'timeout':
      return {
        code: 'companion-gone',
        message: `Nothing answers at ${where} (${attempt.probe.detail}): the companion that wrote${file} is gone.`,
        fix: `Remove the stale file (rm${file}) and restart the editor or its companion.`,
      };
    default:
      return {
        code: 'connection-failed',
        message: `What listens at ${where} is not an MCP companion (${attempt.probe.detail}).`,
        fix: `Remove${file} if it is stale, and restart the editor's companion.`,
      };
  }
}

function containerProblem(name: string, attempt: ConnectionAttempt, input: ProblemInput): Found {
  const marker = input.environment.container?.marker ?? '/.dockerenv';
  return {
    code: 'container-host',
    message: `${marker} exists, so ${name} dials host.docker.internal:${attempt.port} instead of 127.0.0.1, and that fails (${attempt.probe.detail}).`,
    fix: `If the editor runs in this same container: eval "$(${input.tandem} env)" (it exports REMOTE_CONTAINERS=true), or export REMOTE_CONTAINERS=true, before starting the CLI; terminals the editor opens itself have it already. If the editor runs on the host, let its companion accept host.docker.internal (Tandem: allowContainerHost in the bridge \`initialize\`).`,
  };
}

function unsafeFolderProblem({ dir, why }: { dir: string; why: string }): Problem {
  return {
    severity: 'error',
    code: 'unsafe-discovery-folder',
    message: `${why}. Tandem writes no discovery file there: another user could change what the CLIs read, or read the companion's token. The CLIs that look there do not find a Tandem editor.`,
    fix: `If the folder is yours, make it private (chmod 700 ${shellWord(dir)}); if another user created it, ask them (or root) to remove it, or, for a folder under TMPDIR, start the editor and the CLIs with a private one (export TMPDIR=$XDG_RUNTIME_DIR).`,
  };
}

function environmentProblems(input: ProblemInput): Problem[] {
  const problems: Problem[] = [];
  const term = input.env.TERM_PROGRAM;
  const claims = new Set([
    ...editorClaimsOf('gemini', input.env),
    ...editorClaimsOf('qwen', input.env),
  ]);
  if (term && !claims.has(`TERM_PROGRAM=${term}`)) {
    problems.push({
      severity: 'info',
      code: 'term-program',
      message: `TERM_PROGRAM=${term}: harmless, neither CLI takes it for an editor.`,
    });
  }
  if (claims.size > 0 && !input.env.VSCODE_IPC_HOOK_CLI) {
    problems.push({
      severity: 'warning',
      code: 'editor-variable',
      message: `${[...claims].join(', ')} is set outside that editor: a CLI then believes it runs there, even when the discovery data names another editor or is missing — it tries to connect instead of saying "not supported", and names the wrong editor.`,
      fix: `Unset it in this shell (unset ${[...claims].map((claim) => claim.split('=')[0]).join(' ')}) and where it comes from: a terminal started from that editor, or tmux's global environment (tmux set-environment -g -u TERM_PROGRAM).`,
    });
  }
  for (const [variable, client] of [
    ['GEMINI_CLI_IDE_SERVER_PORT', 'gemini'],
    ['QWEN_CODE_IDE_SERVER_PORT', 'qwen'],
  ] as const) {
    const value = input.env[variable];
    if (!value) continue;
    const live = input.files.some((file) => file.live && String(file.port) === value);
    if (!live) {
      problems.push({
        severity: 'warning',
        code: 'stale-port-variable',
        client,
        message: `${variable}=${value}, but no live companion listens on port ${value}: a leftover from another editor or terminal.`,
        fix: `Run eval "$(${input.tandem} env)" in this terminal, or unset ${variable}.`,
      });
    }
  }
  return problems;
}

function staleFileProblems(files: FileReport[]): Problem[] {
  return files
    .filter((file) => !file.live)
    .map((file) => ({
      severity: 'warning' as const,
      code: 'stale-discovery-file',
      message: `${file.path} is stale: ${file.staleBecause}.${
        file.kind === 'qwen-lock' && file.processes.some((p) => p.role === 'editor' && !p.alive)
          ? ' Qwen Code deletes it when it starts.'
          : ''
      }`,
      fix: `rm ${shellWord(file.path)}`,
    }));
}

function rootsOf(candidates: ClientReport['candidates']): string[] {
  const roots = candidates.flatMap((c) =>
    c.workspace?.outcome === 'mismatch' ? c.workspace.roots : [],
  );
  return [...new Set(roots)];
}

function userSettingsOf(client: ClientReport): string {
  return client.ideMode.layers.find((layer) => layer.scope === 'user')?.path ?? '';
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Claude Code's problems: how it reaches an editor from here, and whether diffs reach it. */
function claudeProblems(claude: ClaudePrediction, input: ProblemInput): Problem[] {
  const problems: Problem[] = [];
  const add = (severity: Problem['severity'], code: string, message: string, fix: string) =>
    problems.push({ severity, code, client: 'claude', message, fix });
  const envLine = `eval "$(${input.tandem} env)"`;
  if (claude.ssePort !== undefined && claude.connection !== 'by-itself') {
    add(
      'warning',
      'claude-port-stale',
      `${CLAUDE_PORT_VARIABLE}=${claude.ssePort} names no live lock file: Claude Code started here does not connect by itself.`,
      `Run ${envLine} in this terminal (it sets the port of the editor that has this folder), or unset ${CLAUDE_PORT_VARIABLE}.`,
    );
  }
  if (claude.connection === 'none') {
    add(
      'error',
      'claude-no-editor',
      `Claude Code finds no editor for this folder (${input.dir}): /ide lists none.`,
      startCompanion(input),
    );
  } else if (claude.connection !== 'by-itself') {
    add(
      'info',
      'claude-needs-ide',
      `Claude Code started here connects only with --ide or through /ide: ${claude.choice}`,
      `Start it in the editor's own terminal, or run ${envLine} before it (then it connects by itself), or start it as claude --ide, or type /ide in it.`,
    );
  }
  const others = claude.locks.filter(
    (lock) => lock.alive && !lock.tandem && lock.containsFolder && lock.port !== claude.port,
  );
  for (const other of others) {
    const name = other.ideName ?? 'an editor';
    add(
      'info',
      'claude-other-companion',
      `Another Claude Code companion has this folder: ${name} (PID ${other.pid}, port ${other.port}); /ide offers it too.`,
      `Pick this editor in /ide, or run ${envLine} before Claude Code; or ${stopOtherClaudeCompanion(name)}.`,
    );
  }
  for (const lock of claude.locks.filter((l) => claude.deletes.includes(l.path))) {
    add(
      'info',
      'claude-deletes-lock',
      `Claude Code deletes ${lock.path} when it starts (${lock.note.replace(/^deleted: /, '')}).`,
      lock.error
        ? 'Nothing is lost: the companion that wrote it (if it runs) writes it again when restarted.'
        : 'Nothing to do: its editor is gone.',
    );
  }
  for (const warning of claudeSettingsWarnings(claude.settings)) {
    add('warning', warning.code, warning.message, warning.fix);
  }
  return problems;
}
