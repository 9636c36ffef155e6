import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import {
  CONTAINER_LOOPBACK_VARIABLES,
  containerFacts,
  containerTerminalVariables,
  DISCOVERY_KINDS,
  geminiHost,
  isProcessAlive,
  mayPointTo,
  type ContainerFacts,
} from '@tandem/core';
import { diagnose } from '../doctor/diagnosis.js';
import { CLIENT_NAMES, type ClientKind } from '../doctor/prediction.js';
import {
  fieldsOf,
  isObject,
  scanDiscoveryFiles,
  type DiscoveryFile,
} from '../scan/discovery-files.js';
import { discoveryLocations } from '@tandem/core';
import {
  fieldsOutcome,
  outcome,
  type CheckResult,
  type CheckRule,
  type CheckTarget,
} from './check-report.js';
import type { CompanionAddress } from './check-client.js';

/** The primary file of each CLI: the one every current version reads from any terminal. */
const PRIMARY_KIND = { gemini: 'gemini', qwen: 'qwen-lock' } as const;

export const DISCOVERY_RULES = {
  found: {
    id: 'discovery.found',
    title: 'the CLI finds a companion for this folder',
    severity: 'breaks',
    effect: 'The CLI works without the editor, saying what is quoted above.',
    fix: 'Run `tandem doctor` in this folder: it names the cause and its fix (the failures below often name it too).',
  },
  place: {
    id: 'discovery.place',
    title: 'the discovery file is where current versions look',
    severity: 'advice',
    effect:
      'Only a CLI whose own IDE PID or port variable names this file finds it: a CLI in another terminal (tmux, a second window) does not.',
    fix: 'Write `<tmp>/gemini/ide/gemini-ide-server-<PID>-<PORT>.json` for Gemini CLI and `${QWEN_HOME:-~/.qwen}/ide/<PORT>.lock` for Qwen Code.',
  },
  fields: {
    id: 'discovery.fields',
    title: 'port, workspacePath and authToken have the types the CLIs read',
    severity: 'breaks',
    effect:
      "The CLI's discovery code fails on the file or connects elsewhere: it reports the IDE as not running.",
    fix: 'Write `port` as a number equal to the port in the name, `workspacePath` as a string of absolute folders joined with the path delimiter, `authToken` as a non-empty string.',
  },
  ideInfo: {
    id: 'discovery.ide-info',
    title: 'ideInfo {name, displayName} names the editor',
    severity: 'breaks',
    effect:
      'Unless TERM_PROGRAM names an editor the CLI knows, it says "IDE integration is not supported in your current environment" and never connects.',
    fix: 'Write `"ideInfo": {"name": "<editor>", "displayName": "<Editor>"}` in every discovery file. Do not fake TERM_PROGRAM.',
  },
  ppid: {
    id: 'discovery.ppid',
    title: "Qwen Code's lock names a live editor process in ppid",
    severity: 'breaks',
    effect: 'Qwen Code deletes a lock whose ppid is not a running process, then finds no editor.',
    fix: "Write the editor's own PID (a process that lives as long as the companion) as `ppid`.",
  },
  container: {
    id: 'discovery.container',
    title: 'Gemini CLI in a terminal the editor did not open dials the companion',
    severity: 'advice',
    effect:
      'In this container Gemini CLI dials host.docker.internal instead of 127.0.0.1 unless a variable says the editor runs beside it: started in a plain terminal (one the editor did not open: tmux, a second window), it fails with "Failed to connect". The editor\'s own terminals are given that variable.',
    fix: 'In such a terminal run eval "$(tandem env)" (it exports REMOTE_CONTAINERS=true), or export REMOTE_CONTAINERS=true, before starting gemini.',
  },
  owner: {
    id: 'discovery.owner',
    title: "Gemini CLI's file belongs to the user who runs the CLI",
    severity: 'breaks',
    effect:
      'Gemini CLI skips a discovery file whose owner is not its own user, whatever its mode: it finds no companion in it.',
    fix: 'Write the file as the user who runs the editor and the CLI.',
  },
  lockOwner: {
    id: 'discovery.lock-owner',
    title: "Qwen Code's lock belongs to the user who runs the CLI",
    severity: 'advice',
    effect:
      "Qwen Code checks no owner: it uses another user's lock all the same whenever it can read it (as root, or when the lock is readable by others), and connects to that user's companion. Gemini CLI would skip such a file.",
    fix: 'Write the file as the user who runs the editor and the CLI.',
  },
  private: {
    id: 'discovery.private',
    title: 'the token is readable by its owner only',
    severity: 'unsafe',
    effect:
      'Any user of the machine can read the token and drive the editor: open diffs, read the context.',
    fix: 'Create the file with mode 0600 (exclusively, then rename it into place) in a directory of mode 0700.',
  },
} satisfies Record<string, CheckRule>;

export interface DiscoveryFindings {
  checks: CheckResult[];
  /** The companions the CLIs would connect to, with the token each would send. */
  targets: (CheckTarget & CompanionAddress)[];
}

/**
 * Which companion each CLI would use from `dir` — doctor's prediction — and whether its
 * discovery files hold what the CLIs need.
 */
export async function checkDiscovery(
  dir: string,
  env: NodeJS.ProcessEnv,
  clients: ClientKind[],
  container: ContainerFacts = containerFacts(env),
): Promise<DiscoveryFindings> {
  // The CLIs run as in a terminal the editor opened, with the variables it gives terminals: the
  // companion is judged, not the terminal; the container rule is reported below, by name.
  const terminal = containerTerminalVariables(container);
  const diagnosis = await diagnose({
    dir,
    env: { ...env, ...terminal },
    clients,
    container: containerFacts({ ...env, ...terminal }, (path) => path === container.marker),
  });
  const files = await scanDiscoveryFiles(discoveryLocations(env, dir));
  const checks: CheckResult[] = [];
  if (clients.includes('gemini')) checks.push(containerCheck(container));
  const targets: DiscoveryFindings['targets'] = [];
  const examined = new Set<string>();
  for (const prediction of diagnosis.clients) {
    const kind = prediction.client;
    const name = CLIENT_NAMES[kind];
    const chosen = files.find((file) => file.path === prediction.chosenFile);
    // A CLI that refuses the companion (no ideInfo, say) still names the one it found.
    const port = prediction.port ?? (chosen && fieldsOf(chosen).port);
    const via = chosen ? ` through ${basename(chosen.path)}` : ' (through its port variable)';
    checks.push(
      outcome(
        DISCOVERY_RULES.found,
        prediction.connected,
        prediction.connected
          ? `${name} connects to port ${port}${via}`
          : `${name}: ${prediction.status}`,
        [kind],
      ),
    );
    if (chosen) {
      examined.add(chosen.path);
      checks.push(...(await fileChecks(chosen, kind)));
    }
    // Another user's file is reported above and never judged as the user's companion.
    if (port === undefined || (chosen && !mayPointTo(chosen))) continue;
    const companionFiles = files.filter((file) => fieldsOf(file).port === port && mayPointTo(file));
    const token =
      (chosen && fieldsOf(chosen).authToken) ??
      (kind === 'gemini' ? env.GEMINI_CLI_IDE_AUTH_TOKEN : undefined);
    const existing = targets.find((target) => target.port === port);
    if (existing) {
      (existing.chosenBy as ClientKind[]).push(kind);
      continue;
    }
    const ideInfo = companionFiles.map((file) => fieldsOf(file).ideInfo).find(Boolean);
    targets.push({
      port,
      ...(token && { token }),
      chosenBy: [kind],
      ...(ideInfo && { ideInfo }),
      files: companionFiles.map((file) => file.path),
    });
  }
  // A file the CLI passed over (Qwen Code deletes a lock whose editor is gone) is examined too,
  // when it belongs to a companion found or to another user: it says why it was not taken.
  for (const kind of clients) {
    for (const file of files) {
      const port = fieldsOf(file).port;
      if (file.kind !== PRIMARY_KIND[kind] || examined.has(file.path)) continue;
      if (!targets.some((target) => target.port === port) && mayPointTo(file)) continue;
      examined.add(file.path);
      checks.push(...(await fileChecks(file, kind)));
    }
  }
  return { checks, targets };
}

function containerCheck({ marker, localOverride }: ContainerFacts): CheckResult {
  const detail = !marker
    ? 'not in a container'
    : localOverride
      ? `in a container (${marker}), ${localOverride} set: Gemini CLI dials 127.0.0.1`
      : `in a container (${marker}) with none of ${CONTAINER_LOOPBACK_VARIABLES.join(', ')} set here: Gemini CLI dials host.docker.internal`;
  return outcome(
    DISCOVERY_RULES.container,
    geminiHost({ marker, localOverride }) === '127.0.0.1',
    detail,
    ['gemini'],
  );
}

async function fileChecks(file: DiscoveryFile, kind: ClientKind): Promise<CheckResult[]> {
  const name = basename(file.path);
  const data = isObject(file.content) ? file.content : {};
  const fields = fieldsOf(file);
  const checks: CheckResult[] = [];
  const rule = DISCOVERY_KINDS[file.kind];
  checks.push(
    outcome(
      DISCOVERY_RULES.place,
      file.kind === PRIMARY_KIND[kind],
      `${file.path}: read by ${rule.readBy}`,
      [kind],
    ),
  );
  const problems = [
    !Number.isInteger(data.port) || (file.namePort !== undefined && data.port !== file.namePort)
      ? `port ${JSON.stringify(data.port)}${file.namePort !== undefined ? ` (the name says ${file.namePort})` : ''}`
      : undefined,
    typeof data.workspacePath === 'string'
      ? undefined
      : `workspacePath ${JSON.stringify(data.workspacePath)}`,
    fields.authToken === undefined ? `authToken ${JSON.stringify(data.authToken)}` : undefined,
  ];
  checks.push(fieldsOutcome(DISCOVERY_RULES.fields, name, problems, [kind]));
  checks.push(
    outcome(
      DISCOVERY_RULES.ideInfo,
      fields.ideInfo !== undefined,
      fields.ideInfo
        ? `${name}: ${fields.ideInfo.displayName} (${fields.ideInfo.name})`
        : `${name}: ideInfo is ${JSON.stringify(data.ideInfo)}`,
      [kind],
    ),
  );
  if (kind === 'qwen') {
    const live = fields.ppid !== undefined && isProcessAlive(fields.ppid);
    checks.push(
      outcome(
        DISCOVERY_RULES.ppid,
        live,
        fields.ppid === undefined
          ? `${name}: ppid is ${JSON.stringify(data.ppid)}`
          : `${name}: ppid ${fields.ppid} ${live ? 'running' : 'is not running'}`,
        [kind],
      ),
    );
  }
  checks.push(
    outcome(
      kind === 'gemini' ? DISCOVERY_RULES.owner : DISCOVERY_RULES.lockOwner,
      file.ownedByUser,
      `${name}: ${file.ownedByUser ? 'yours' : "another user's"}`,
      [kind],
    ),
  );
  checks.push(await privacyCheck(file, kind));
  return checks;
}

/** The file and its directory keep the token from other users. */
async function privacyCheck(file: DiscoveryFile, kind: ClientKind): Promise<CheckResult> {
  const [fileMode, dirMode] = await Promise.all([
    stat(file.path).then((s) => s.mode & 0o777),
    stat(dirname(file.path)).then((s) => s.mode & 0o777),
  ]).catch(() => [undefined, undefined]);
  const octal = (mode: number | undefined) => (mode === undefined ? '?' : mode.toString(8));
  const detail = `${basename(file.path)}: mode ${octal(fileMode)}, directory ${octal(dirMode)}`;
  const readableByOthers = fileMode === undefined || (fileMode & 0o044) !== 0;
  const replaceableByOthers = dirMode === undefined || (dirMode & 0o022) !== 0;
  return outcome(DISCOVERY_RULES.private, !readableByOthers && !replaceableByOthers, detail, [
    kind,
  ]);
}
