import { join } from 'node:path';
import { quotingShellOf } from '@tandem/command';
import type { CompanionWarning } from '../editor-port.js';
import {
  APPROVAL_MODE_RULES,
  approvalModeOrigin,
  CLI_DISPLAY_NAMES,
  type CliKind,
  type CliSettings,
} from './cli-settings.js';
import type { ClaudeSettings } from './claude-settings.js';
import { CONTAINER_LOOPBACK_VARIABLE, geminiHost, type ContainerFacts } from './container-rules.js';
import type { DiscoveryLocations } from './discovery-rules.js';

/**
 * The warnings every frontend shows (see `CompanionWarning`), from the facts about the CLIs'
 * settings and the other editors that `warnings/` gathers: rules only, no file is read here.
 */

/** Another live companion, as its discovery files name it. */
export interface OtherEditor {
  port: number;
  /** Its editor's PID (a Qwen Code lock's `ppid`), else the PID its Gemini file is named after. */
  pid?: number;
  displayName: string;
  folders: string[];
}

export interface WarningInput {
  /** The environment of the CLIs' terminals (the editor's own). */
  env: NodeJS.ProcessEnv;
  workspaceFolders: string[];
  /** This companion's port, so that it does not warn about itself. */
  port: number;
  container: ContainerFacts;
  /** How the user runs Tandem, for the fixes (`tandem`, or `node …/tandem.js`). */
  tandem: string;
  /** Whether the editor opens terminals that get `terminalEnv()` (false for `tandem serve`). */
  ownTerminals: boolean;
  /** Whether the editor shows diffs: an approval mode only matters when it does. */
  showsDiffs: boolean;
  /** The names of the CLIs connected now (`ConnectedClient.name`): what they did, they can do. */
  connectedClients?: string[];
  /** Whether this companion serves Claude Code (default true): left to another, none of its warnings. */
  servesClaude?: boolean;
}

/** Another companion's live Claude Code lock (not Tandem's) whose folders overlap this one's. */
export interface OtherClaudeCompanion {
  port: number;
  pid: number;
  ideName: string;
  folders: string[];
}

/** What the warnings are computed from: each CLI's settings, the other live editors. */
export interface WarningFacts {
  locations: DiscoveryLocations;
  settings: Record<CliKind, CliSettings>;
  /** The other live companions whose folders overlap this one's. */
  others: OtherEditor[];
  claude: ClaudeSettings;
  /** Other companions that Claude Code may pick for this folder. */
  claudeCompanions: OtherClaudeCompanion[];
}

/** Every warning that applies to a companion serving `input.workspaceFolders`, given `facts`. */
export function warningsFor(input: WarningInput, facts: WarningFacts): CompanionWarning[] {
  return [
    ...(['gemini', 'qwen'] as const).flatMap((cli) =>
      settingsWarnings(cli, facts.settings[cli], facts.locations, input),
    ),
    ...containerWarnings(input),
    ...facts.others.map((other) => sharedFolderWarning(other, input)),
    // Only someone who has Claude Code, and has Tandem serve it, needs to hear about it.
    ...(facts.claude.installed && input.servesClaude !== false ? claudeWarnings(facts, input) : []),
  ];
}

function settingsWarnings(
  cli: CliKind,
  { ideMode, approvalMode }: CliSettings,
  locations: DiscoveryLocations,
  input: WarningInput,
): CompanionWarning[] {
  const name = CLI_DISPLAY_NAMES[cli];
  const warnings: CompanionWarning[] = [];
  if (!ideMode.enabled) {
    const userFile = ideMode.layers.find((layer) => layer.scope === 'user')?.path;
    warnings.push({
      code: 'ide-mode-off',
      cli,
      message: `IDE mode is off in ${name}: it will not connect to this editor.`,
      fix:
        `Type /ide enable in ${name}. If it asks to install an extension for this editor, ` +
        `answer No (there is nothing to install) and type /ide enable. ` +
        `Or set {"ide": {"enabled": true}} in ${userFile}.`,
    });
  }
  if (input.showsDiffs && !approvalMode.showsDiffs) {
    const rule = APPROVAL_MODE_RULES[cli];
    const where = approvalModeOrigin(cli, approvalMode);
    const userFile =
      cli === 'gemini'
        ? join(locations.geminiHome, '.gemini', 'settings.json')
        : join(locations.qwenHome, 'settings.json');
    const [section, key] = rule.setting.split('.') as [string, string];
    warnings.push({
      code: 'no-diffs',
      cli,
      message:
        `${name} starts in approval mode "${approvalMode.mode}" (${where}): it writes edits ` +
        `without asking, so no diff is ever shown in the editor, though it says "Connected".`,
      fix:
        (cli === 'qwen'
          ? `Type /approval-mode default in Qwen Code, or set `
          : `Start it with --approval-mode default, or set `) +
        `{"${section}": {"${key}": "default"}} in ${userFile}.`,
    });
  }
  return warnings;
}

function claudeWarnings(
  { claude, claudeCompanions }: WarningFacts,
  input: WarningInput,
): CompanionWarning[] {
  return [
    ...(input.showsDiffs ? claudeSettingsWarnings(claude) : []),
    ...claudeCompanions.map((other) => otherClaudeWarning(other, input)),
  ];
}

/** What Claude Code's settings do to the diffs an editor would show (for `doctor` too). */
export function claudeSettingsWarnings(claude: ClaudeSettings): CompanionWarning[] {
  const warnings: CompanionWarning[] = [];
  if (!claude.showsDiffs) {
    const where = claude.decidedBy
      ? `set in ${claude.decidedBy.path}`
      : claude.version
        ? `the default of Claude Code ${claude.version}`
        : 'the default of its newest releases';
    // A folder's file outranks the user's: the fix goes where the mode is set.
    const file = claude.decidedBy?.path ?? claude.userFile;
    warnings.push({
      code: 'no-diffs',
      cli: 'claude',
      message:
        `Claude Code starts in permission mode "${claude.mode}" (${where}): it writes edits ` +
        `without asking, so no diff is ever shown in the editor, though /ide says it is connected.`,
      fix:
        `Start it with --permission-mode default, or set ` +
        `{"permissions": {"defaultMode": "default"}} in ${file}.`,
    });
  }
  if (claude.terminalDiffTool) {
    warnings.push({
      code: 'terminal-diffs',
      cli: 'claude',
      message:
        `Claude Code's diff tool is "terminal" (diffTool in ${claude.terminalDiffTool}): ` +
        `it shows every proposed edit in its terminal, never in the editor.`,
      fix:
        `Type /config in Claude Code and set "Diff tool" to auto, or set "diffTool": "auto" ` +
        `in ${claude.terminalDiffTool}.`,
    });
  }
  return warnings;
}

/** What to do about each known companion, by the name its lock gives its editor. */
export function stopOtherClaudeCompanion(ideName: string): string {
  if (/code|cursor|windsurf|vscodium/i.test(ideName)) {
    return `disable Anthropic's Claude Code extension in that ${ideName} window`;
  }
  if (/neovim|nvim/i.test(ideName)) return `stop claudecode.nvim there (:ClaudeCodeStop)`;
  if (/emacs/i.test(ideName)) return `stop claude-code-ide.el there (M-x claude-code-ide-stop)`;
  return `stop that companion`;
}

function otherClaudeWarning(other: OtherClaudeCompanion, input: WarningInput): CompanionWarning {
  return {
    code: 'shared-folder',
    cli: 'claude',
    message:
      `Another Claude Code companion serves this folder: ${other.ideName} (PID ${other.pid}, ` +
      `port ${other.port}, folder ${other.folders.join(', ') || '(none)'}). Claude Code started ` +
      `with --ide, or a pick in /ide, may connect to it instead of this editor.`,
    fix:
      (input.ownTerminals
        ? `Start Claude Code in this editor's terminal (it connects here by itself), or in another terminal`
        : `In the terminal of Claude Code`) +
      `, run ${envLine(input.tandem, input.env, ` --port ${input.port}`)} before it; ` +
      `or ${stopOtherClaudeCompanion(other.ideName)}.`,
  };
}

function containerWarnings(input: WarningInput): CompanionWarning[] {
  if (geminiHost(input.container) !== 'host.docker.internal') return [];
  // A Gemini CLI that connected had what it needs: the user has the fix in hand.
  if (input.connectedClients?.includes(CLI_DISPLAY_NAMES.gemini)) return [];
  const env = envLine(input.tandem, input.env);
  return [
    {
      code: 'container',
      cli: 'gemini',
      message:
        `This runs in a container (${input.container.marker}): Gemini CLI started in a terminal ` +
        (input.ownTerminals ? `this editor did not open ` : ``) +
        `dials host.docker.internal instead of 127.0.0.1 and fails ("Failed to connect").`,
      fix:
        `In a terminal of this container, run ${env} (or export ${CONTAINER_LOOPBACK_VARIABLE}=true) ` +
        `before starting gemini` +
        (input.ownTerminals ? `; the editor's own terminals have it already.` : `.`) +
        ` A CLI outside the container cannot reach this editor.`,
    },
  ];
}

function sharedFolderWarning(other: OtherEditor, input: WarningInput): CompanionWarning {
  const pid = other.pid === undefined ? '' : `PID ${other.pid}, `;
  return {
    code: 'shared-folder',
    message:
      `Another editor serves this folder too: ${other.displayName} (${pid}port ${other.port}, ` +
      `folder ${other.folders.join(', ') || '(none)'}). A CLI started outside this editor's ` +
      `terminals may connect to either.`,
    fix:
      `In that terminal run ${envLine(input.tandem, input.env, ` --port ${input.port}`)} before the CLI, ` +
      `or close the other editor's companion.`,
  };
}

/** The line that runs `tandem env ARGS` in the user's shell (`$SHELL` of `env`). */
function envLine(tandem: string, env: NodeJS.ProcessEnv, args = ''): string {
  return quotingShellOf(env) === 'fish'
    ? `${tandem} env${args} --shell fish | source`
    : `eval "$(${tandem} env${args})"`;
}
