import { isProcessAlive } from '@tandem/core';
import { fieldsOf, type DiscoveryFields, type DiscoveryFile } from './discovery-files.js';
import { probeCompanion, type ProbeResult, type ProbeTarget } from './mcp-probe.js';

/** A process a discovery file names, and whether it is running. */
export interface NamedProcess {
  pid: number;
  /** `editor`: the lock's `ppid`; `writer`: Tandem's mark; `ide`: the PID in the file name. */
  role: 'editor' | 'writer' | 'ide';
  alive: boolean;
}

/** One discovery file, read and checked. */
export interface CheckedFile {
  file: DiscoveryFile;
  fields: DiscoveryFields;
  processes: NamedProcess[];
  /** The handshake on 127.0.0.1 with the file's own token; absent without a port. */
  probe?: ProbeResult;
  /** Its processes run (as far as it names any) and its port answers with its token. */
  live: boolean;
  /** Why it is not live. */
  staleBecause?: string;
}

/** Runs each distinct handshake once. */
export class Prober {
  private readonly results = new Map<string, Promise<ProbeResult>>();

  probe(target: ProbeTarget): Promise<ProbeResult> {
    const key = `${target.host}\n${target.port}\n${target.token ?? ''}`;
    let result = this.results.get(key);
    if (!result) {
      result = probeCompanion(target);
      this.results.set(key, result);
    }
    return result;
  }
}

export async function checkFiles(files: DiscoveryFile[], prober: Prober): Promise<CheckedFile[]> {
  return Promise.all(files.map((file) => checkFile(file, prober)));
}

async function checkFile(file: DiscoveryFile, prober: Prober): Promise<CheckedFile> {
  const fields = fieldsOf(file);
  const processes = namedProcesses(file, fields);
  const port = fields.port;
  const probe = port
    ? await prober.probe({ host: '127.0.0.1', port, token: fields.authToken })
    : undefined;
  const staleBecause = whyStale(file, fields, processes, probe);
  return {
    file,
    fields,
    processes,
    ...(probe && { probe }),
    live: staleBecause === undefined,
    ...(staleBecause !== undefined && { staleBecause }),
  };
}

function namedProcesses(file: DiscoveryFile, fields: DiscoveryFields): NamedProcess[] {
  const named: [number | undefined, NamedProcess['role']][] = [
    [fields.ppid, 'editor'],
    [fields.tandemPid, 'writer'],
    [file.namePid, 'ide'],
  ];
  return named
    .filter((entry): entry is [number, NamedProcess['role']] => entry[0] !== undefined)
    .map(([pid, role]) => ({ pid, role, alive: isProcessAlive(pid) }));
}

function whyStale(
  file: DiscoveryFile,
  fields: DiscoveryFields,
  processes: NamedProcess[],
  probe: ProbeResult | undefined,
): string | undefined {
  if (file.error) return `it ${file.error}`;
  if (fields.port === undefined) return 'it names no port';
  // The file name's PID is often the editor's parent (a shell that outlives it): it decides
  // only when the file names no other process.
  const decisive = processes.some((p) => p.role !== 'ide')
    ? processes.filter((p) => p.role !== 'ide')
    : processes;
  const dead = decisive.find((p) => !p.alive);
  if (dead) return `its ${dead.role === 'ide' ? 'IDE' : dead.role} process ${dead.pid} is gone`;
  if (probe && probe.outcome !== 'ok') return `port ${fields.port} ${probe.detail}`;
  return undefined;
}

/** The files that name one port: one editor's companion, usually a Gemini file and a Qwen lock. */
export interface Companion {
  port: number;
  files: CheckedFile[];
  live: boolean;
  /** The newest modification time of its files. */
  mtimeMs: number;
  ideInfo?: { name: string; displayName: string };
}

export function groupByPort(files: CheckedFile[]): Companion[] {
  const byPort = new Map<number, CheckedFile[]>();
  for (const checked of files) {
    const port = checked.fields.port;
    if (port === undefined) continue;
    byPort.set(port, [...(byPort.get(port) ?? []), checked]);
  }
  return [...byPort].map(([port, members]) => {
    const ideInfo = members.find((member) => member.fields.ideInfo)?.fields.ideInfo;
    return {
      port,
      files: members,
      live: members.some((member) => member.live),
      mtimeMs: Math.max(...members.map((member) => member.file.mtimeMs)),
      ...(ideInfo && { ideInfo }),
    };
  });
}
