import { printable } from '@tandem/command';
import { approvalModeOrigin } from '@tandem/core';
import { basename } from 'node:path';
import type { ClaudePrediction } from './claude-prediction.js';
import type { ClientReport, DoctorReport, FileReport, Problem } from './doctor-report.js';
import { CLIENT_NAMES } from './prediction.js';

const MARK = { ok: '✓', error: '✗', warning: '!', info: '·' } as const;

/** The report for a terminal: sections, one fact per line, marked ✓ / ✗ / ! / ·. */
export function renderReport(report: DoctorReport): string {
  const out: string[] = [];
  const dir =
    report.realDir === report.dir ? report.dir : `${report.dir} (resolved: ${report.realDir})`;
  out.push(`tandem doctor: ${dir}`, '');
  out.push('Discovery files', ...filesSection(report), '');
  for (const client of report.clients) out.push(client.name, ...clientSection(client), '');
  if (report.claude) out.push('Claude Code', ...claudeSection(report.claude), '');
  const environment = environmentSection(report);
  if (environment.length > 0) out.push('Environment', ...environment, '');
  if (report.problems.length > 0)
    out.push('Problems and fixes', ...problemsSection(report.problems), '');
  out.push(verdict(report));
  // Every line, whatever of a file's or a client's it holds, stays one line of plain text.
  return `${out.map(printable).join('\n')}\n`;
}

function filesSection(report: DoctorReport): string[] {
  const { locations } = report;
  const places = `${locations.geminiIdeDir}, ${locations.qwenIdeDir}, ${locations.tmpDir}`;
  if (report.files.length === 0) return [`  ${MARK.info} none (looked in ${places})`];
  return report.files.flatMap(fileLines);
}

function fileLines(file: FileReport): string[] {
  const editor = file.ideInfo ? file.ideInfo.displayName : 'no ideInfo';
  const port = file.port === undefined ? 'no port' : `port ${file.port}`;
  const state = file.live ? 'live' : `stale: ${file.staleBecause}`;
  const lines = [
    `  ${file.live ? MARK.ok : MARK.error} ${basename(file.path)}  ${editor} · ${port} · ${state}`,
  ];
  lines.push(`      ${file.path}`);
  const details = [`read by ${file.readBy}`];
  if (file.workspacePath !== undefined) details.push(`workspace ${file.workspacePath || '""'}`);
  if (file.workspace) details.push(workspaceWords(file.workspace.outcome));
  if (!file.hasToken) details.push('no token');
  if (file.tandem) details.push('written by Tandem');
  lines.push(`      ${details.join(' · ')}`);
  const processes = file.processes.map((p) => `${p.role} ${p.pid} ${p.alive ? 'running' : 'gone'}`);
  if (processes.length > 0) lines.push(`      processes: ${processes.join(', ')}`);
  return lines;
}

function workspaceWords(outcome: string): string {
  switch (outcome) {
    case 'match':
      return 'contains this folder';
    case 'mismatch':
      return 'does not contain this folder';
    case 'no-folder':
      return 'no folder open';
    case 'missing':
      return 'no workspacePath';
    default:
      return 'unreadable workspacePath';
  }
}

function clientSection(client: ClientReport): string[] {
  const lines: string[] = [];
  const line = (mark: string, text: string) => lines.push(`  ${mark} ${text}`);
  const { ideMode } = client;
  line(
    ideMode.enabled ? MARK.ok : MARK.error,
    `IDE mode ${ideMode.enabled ? 'on' : 'off'} (${ideMode.decidedBy ? `${ideMode.decidedBy.path}` : 'no settings file sets ide.enabled'})`,
  );
  const { approvalMode } = client;
  line(
    approvalMode.showsDiffs ? MARK.ok : MARK.warning,
    `approval mode ${approvalMode.mode} (${approvalModeOrigin(client.client, approvalMode)}): ${approvalMode.showsDiffs ? 'asks before each edit, with the diff in the editor' : 'writes edits without asking: no diff is shown'}`,
  );
  // Qwen Code uses it only to find a legacy file; the JSON report has it.
  if (client.client === 'gemini') {
    line(MARK.info, `IDE PID ${client.idePid.pid}, from ${client.idePid.source}`);
  }
  for (const candidate of client.candidates) {
    line(' ', `${candidate.rank}. ${basename(candidate.path)}: ${candidate.note}`);
  }
  line(
    client.chosenFile ? MARK.info : MARK.error,
    `picks ${client.chosenFile ? basename(client.chosenFile) : 'no file'}: ${client.choice}`,
  );
  if (client.deletes) {
    for (const path of client.deletes) line(MARK.warning, `deletes ${path} when it starts`);
  }
  if (client.crash) {
    line(MARK.error, client.crash);
    return lines;
  }
  if (!client.detectedIde) {
    line(MARK.error, 'no editor detected: "IDE integration is not supported"');
    return lines;
  }
  const { detectedIde } = client;
  const fromInfo = detectedIde.from === 'ideInfo';
  line(
    fromInfo ? MARK.ok : MARK.warning,
    `editor: ${detectedIde.displayName} (from ${fromInfo ? 'ideInfo' : 'the environment'})`,
  );
  if (client.workspace) {
    const matched = client.workspace.outcome === 'match';
    const where =
      matched && 'matchedRoot' in client.workspace ? ` (${client.workspace.matchedRoot})` : '';
    line(
      matched ? MARK.ok : MARK.error,
      `workspace from ${client.workspace.source}: ${workspaceWords(client.workspace.outcome)}${where}`,
    );
  }
  for (const attempt of client.attempts) {
    const ok = attempt.probe.outcome === 'ok';
    line(
      ok ? MARK.ok : MARK.error,
      `${attempt.host}:${attempt.port} (${attempt.via}${attempt.tokenSent ? '' : ', no token'}): ${attempt.probe.detail}`,
    );
  }
  if (client.connected) {
    const diffs = !client.diffing
      ? 'no diff tools: diffs stay in the terminal'
      : client.approvalMode.showsDiffs
        ? 'diffs shown in the editor'
        : `but diffs are never shown (approval mode ${client.approvalMode.mode})`;
    line(MARK.ok, `connects to ${detectedIde.displayName} on port ${client.port}, ${diffs}`);
  } else {
    line(MARK.error, `does not connect: "${client.status}"`);
  }
  return lines;
}

function claudeSection(claude: ClaudePrediction): string[] {
  const lines: string[] = [];
  const line = (mark: string, text: string) => lines.push(`  ${mark} ${text}`);
  line(MARK.info, `reads lock files in ${claude.lockFolders.join(' and ')}`);
  if (claude.locks.length === 0) line(MARK.info, 'no lock file');
  for (const lock of claude.locks) {
    const editor = lock.ideName ?? 'no ideName';
    line(' ', `${basename(lock.path)}  ${editor}${lock.tandem ? ' (Tandem)' : ''}: ${lock.note}`);
  }
  for (const path of claude.deletes) line(MARK.warning, `deletes ${path} when it starts`);
  const { settings } = claude;
  const where = settings.decidedBy
    ? settings.decidedBy.path
    : settings.version
      ? `the default of ${settings.version}`
      : 'the default of its newest releases';
  line(
    settings.showsDiffs ? MARK.ok : MARK.warning,
    `permission mode ${settings.mode} (${where}): ${settings.showsDiffs ? 'asks before each edit, with the diff in the editor' : 'writes edits without asking: no diff is shown'}`,
  );
  if (settings.terminalDiffTool) {
    line(
      MARK.warning,
      `diffTool "terminal" (${settings.terminalDiffTool}): diffs stay in its terminal`,
    );
  }
  line(claude.connection === 'none' ? MARK.error : MARK.ok, claude.choice);
  return lines;
}

function environmentSection(report: DoctorReport): string[] {
  const lines: string[] = [];
  const { environment } = report;
  for (const [name, value] of Object.entries(environment.variables)) {
    lines.push(`  ${MARK.info} ${name}=${value}`);
  }
  if (environment.termProgram) lines.push(`  ${MARK.info} TERM_PROGRAM=${environment.termProgram}`);
  if (environment.container) {
    const { marker, localOverride, geminiHost } = environment.container;
    const why = localOverride
      ? `${localOverride} is set`
      : `none of SSH_CONNECTION, VSCODE_REMOTE_CONTAINERS_SESSION, REMOTE_CONTAINERS is set`;
    lines.push(`  ${MARK.info} in a container (${marker}); ${why}: Gemini CLI dials ${geminiHost}`);
  }
  return lines;
}

function problemsSection(problems: Problem[]): string[] {
  return problems.flatMap((problem) => {
    const name =
      problem.client &&
      (problem.client === 'claude' ? 'Claude Code' : CLIENT_NAMES[problem.client]);
    const who = name && !problem.message.includes(name) ? `${name}: ` : '';
    const lines = [`  ${MARK[problem.severity]} ${who}${problem.message}`];
    if (problem.fix) lines.push(`    fix: ${problem.fix}`);
    return lines;
  });
}

function verdict(report: DoctorReport): string {
  const parts = report.clients.map((client) => {
    if (client.connects && client.diffing && !client.approvalMode.showsDiffs)
      return `${client.name} connects (port ${client.port}) but shows no diffs (approval mode ${client.approvalMode.mode})`;
    if (client.connects) return `${client.name} connects (port ${client.port})`;
    if (client.connected)
      return `${client.name} would connect (port ${client.port}) once IDE mode is on`;
    return `${client.name} does not connect`;
  });
  const { claude } = report;
  if (claude) {
    const how = {
      'by-itself': `connects by itself (port ${claude.port})`,
      'with-ide-flag': `connects with --ide or /ide (port ${claude.port})`,
      'by-ide-command': 'connects after a pick in /ide',
      none: 'finds no editor',
    }[claude.connection];
    const diffs =
      claude.settings.showsDiffs && !claude.settings.terminalDiffTool ? '' : ' but shows no diffs';
    parts.push(`Claude Code ${how}${claude.connection === 'none' ? '' : diffs}`);
  }
  return `${report.ok ? MARK.ok : MARK.error} ${parts.join('; ')}.`;
}
