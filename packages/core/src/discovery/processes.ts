import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { idePidAboveShell } from '../clients/discovery-rules.js';

/** Whether a process with this id exists (EPERM means it exists but is someone else's). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The parent of a process, or `undefined` when it cannot be found. */
export function parentPid(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may itself hold spaces and parens.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    try {
      const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
      const ppid = Number(out.trim());
      return Number.isInteger(ppid) && out.trim() !== '' ? ppid : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * The IDE PID that Gemini CLI computes when it runs in a terminal of the editor `editorPid`:
 * its shell's grandparent is the editor's parent, whether the shell is a child of the editor
 * (Neovim, Vim, Emacs) or of a process beside it (VS Code's pty host, beside the extension
 * host) (docs/clients.md, "Discovery").
 */
export function geminiIdePidFor(editorPid: number): number {
  return idePidAboveShell(editorPid, parentPid(editorPid));
}
