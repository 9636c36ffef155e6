import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { idePidAboveShell, TERMINAL_SHELLS } from '@tandem/core';

const run = promisify(execFile);

const MAX_DEPTH = 32;
/** `npx x` / `npm exec x` run x under `sh -c`: that shell is the launcher's, not the terminal's. */
const PACKAGE_RUNNER = /^(npm exec|npx)(\s|$)|\bnpx-cli\.js\b|\/npx(\s|$)/;

export interface IdeProcess {
  pid: number;
  command: string;
  /** The shell the walk stopped at, if it found one. */
  shell?: { pid: number; name: string };
}

interface ProcessInfo {
  parentPid: number;
  name: string;
  command: string;
}

/**
 * The IDE PID that Gemini CLI and Qwen Code compute on Linux and macOS when started in the same
 * terminal as `startPid`: walk up to the first process named exactly like a shell, and take
 * that shell's grandparent if it is above init, else its parent. A login shell (`-bash`) does
 * not count, as in the clients. The `sh -c` that `npx` puts between the terminal's shell and
 * the program is skipped, so that `npx tandem doctor` sees what a CLI started there would.
 */
export async function ideProcessFromTree(startPid = process.pid): Promise<IdeProcess> {
  let current = startPid;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const { parentPid, name } = await processInfo(current);
    if (TERMINAL_SHELLS.has(name)) {
      const launcher = await processInfo(parentPid);
      if (PACKAGE_RUNNER.test(launcher.command) && launcher.parentPid > 1) {
        current = launcher.parentPid;
        continue;
      }
      const pid = idePidAboveShell(parentPid, launcher.parentPid);
      return { pid, command: (await processInfo(pid)).command, shell: { pid: current, name } };
    }
    if (parentPid <= 1) break;
    current = parentPid;
  }
  return { pid: current, command: (await processInfo(current)).command };
}

/** `ps -o ppid=,command=`, parsed as the clients parse it. */
async function processInfo(pid: number): Promise<ProcessInfo> {
  try {
    const { stdout } = await run('ps', ['-o', 'ppid=,command=', '-p', String(pid)]);
    const line = stdout.trim();
    if (!line) return { parentPid: 0, name: '', command: '' };
    const ppidText = line.split(/\s+/)[0] ?? '';
    const parentPid = parseInt(ppidText, 10);
    const command = line.slice(ppidText.length).trim();
    return {
      parentPid: Number.isNaN(parentPid) ? 1 : parentPid,
      name: basename(command.split(' ')[0] ?? ''),
      command,
    };
  } catch {
    return { parentPid: 0, name: '', command: '' };
  }
}

/** The command line of a process, '' when it cannot be found. */
export async function processCommand(pid: number): Promise<string> {
  return (await processInfo(pid)).command;
}
