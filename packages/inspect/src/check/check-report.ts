import { CLAUDE_CLIENT_NAME } from '@tandem/core';
import { CLIENT_NAMES, type ClientKind } from '../doctor/prediction.js';

/** The CLIs `tandem check` checks a companion for (`--cli`). */
export type CheckedCli = ClientKind | 'claude';

export const CHECKED_CLI_NAMES: Record<CheckedCli, string> = {
  ...CLIENT_NAMES,
  claude: CLAUDE_CLIENT_NAME,
};

/**
 * What a failed check means:
 * - `breaks`: a real CLI fails because of it (the exit status is 1);
 * - `unsafe`: the CLIs work, but anyone on the machine (or a web page) can reach the editor;
 * - `advice`: the CLIs work; something degrades (memory, older versions, speed).
 */
export type Severity = 'breaks' | 'unsafe' | 'advice';

export type CheckStatus = 'pass' | 'fail' | 'skip';

/** One check, as the report shows it. */
export interface CheckResult {
  /** A stable name for scripts, e.g. `discovery.ide-info`. */
  id: string;
  title: string;
  status: CheckStatus;
  severity: Severity;
  /** The CLIs concerned; absent when it concerns both. */
  clients?: ClientKind[];
  /** What was seen, in one line. */
  detail: string;
  /** What the real client does when this fails (shown on failure). */
  effect?: string;
  /** How to fix it (shown on failure). */
  fix?: string;
}

export interface CheckSection {
  name: 'Discovery' | 'Security' | 'Transport' | 'Sessions' | 'Selection' | 'Diffs';
  checks: CheckResult[];
}

/** The companion the checks ran against. */
export interface CheckTarget {
  port: number;
  /** How it was found: the CLIs whose prediction chose it, or `--port`. */
  chosenBy: CheckedCli[] | 'port option';
  ideInfo?: { name: string; displayName: string };
  /** Its discovery files, as the CLIs would read them. */
  files: string[];
}

/** The `--json` output of `tandem check` (version 1; fields may be added, none changes). */
export interface CheckReport {
  version: 1;
  dir: string;
  clients: CheckedCli[];
  interactive: boolean;
  targets: CheckTarget[];
  sections: CheckSection[];
  counts: Record<CheckStatus, number>;
  /** No check of severity `breaks` failed. */
  ok: boolean;
}

/** A check's fixed words: what it is, how bad a failure is, and what to do about it. */
export interface CheckRule {
  id: string;
  title: string;
  severity: Severity;
  effect: string;
  fix: string;
}

/** The result of `rule`: passed, or failed with the rule's effect and fix. */
export function outcome(
  rule: CheckRule,
  passed: boolean,
  detail: string,
  clients?: ClientKind[],
): CheckResult {
  return {
    id: rule.id,
    title: rule.title,
    status: passed ? 'pass' : 'fail',
    severity: rule.severity,
    ...(clients && { clients }),
    detail,
    ...(!passed && { effect: rule.effect, fix: rule.fix }),
  };
}

/**
 * The result of a rule on a file's fields: `problems` holds one entry per field that is wrong
 * (undefined for each that is right); it passes when none is wrong.
 */
export function fieldsOutcome(
  rule: CheckRule,
  fileName: string,
  problems: (string | undefined)[],
  clients?: ClientKind[],
): CheckResult {
  const wrong = problems.filter((problem): problem is string => problem !== undefined);
  const detail = wrong.length === 0 ? 'all present' : wrong.join(', ');
  return outcome(rule, wrong.length === 0, `${fileName}: ${detail}`, clients);
}

export function skipped(rule: CheckRule, detail: string, clients?: ClientKind[]): CheckResult {
  return {
    id: rule.id,
    title: rule.title,
    status: 'skip',
    severity: rule.severity,
    ...(clients && { clients }),
    detail,
  };
}

export function buildReport(
  base: Pick<CheckReport, 'dir' | 'clients' | 'interactive' | 'targets'>,
  sections: CheckSection[],
): CheckReport {
  const all = sections.flatMap((section) => section.checks);
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const check of all) counts[check.status] += 1;
  return {
    version: 1,
    ...base,
    sections: sections.filter((section) => section.checks.length > 0),
    counts,
    ok: !all.some((check) => check.status === 'fail' && check.severity === 'breaks'),
  };
}
