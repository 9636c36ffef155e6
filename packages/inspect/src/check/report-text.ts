import { printable } from '@tandem/command';
import { CHECKED_CLI_NAMES, type CheckReport, type CheckResult } from './check-report.js';

const MARK = { pass: '✓', skip: '·', breaks: '✗', unsafe: '✗', advice: '!' } as const;

/** The report for a terminal: one line per check, and under each failure its effect and fix. */
export function renderCheckReport(report: CheckReport): string {
  const out = [`tandem check: ${report.dir}`, ''];
  for (const target of report.targets) {
    const by =
      target.chosenBy === 'port option'
        ? 'given by --port'
        : `used by ${target.chosenBy.map((kind) => CHECKED_CLI_NAMES[kind]).join(' and ')}`;
    const editor = target.ideInfo ? `${target.ideInfo.displayName} · ` : '';
    out.push(`Companion: ${editor}port ${target.port} (${by})`);
  }
  if (report.targets.length > 0) out.push('');
  for (const section of report.sections) {
    out.push(section.name, ...section.checks.flatMap(checkLines), '');
  }
  const { pass, fail, skip } = report.counts;
  const breaking = report.sections
    .flatMap((section) => section.checks)
    .filter((check) => check.status === 'fail' && check.severity === 'breaks').length;
  out.push(
    `${report.ok ? '✓' : '✗'} ${pass} passed, ${fail} failed (${breaking} break a real CLI), ${skip} skipped` +
      (report.interactive ? '' : '; diffs need --interactive'),
  );
  // Every line, whatever of a file's or a client's it holds, stays one line of plain text.
  return `${out.map(printable).join('\n')}\n`;
}

function checkLines(check: CheckResult): string[] {
  const mark = check.status === 'fail' ? MARK[check.severity] : MARK[check.status];
  const who = check.clients
    ? ` [${check.clients.map((kind) => CHECKED_CLI_NAMES[kind]).join(', ')}]`
    : '';
  const label =
    check.status === 'fail' && check.severity !== 'breaks' ? ` (${check.severity})` : '';
  const lines = [`  ${mark} ${check.title}${who}${label}`, `      ${check.detail}`];
  if (check.status === 'fail') {
    lines.push(`      what happens: ${check.effect}`, `      fix: ${check.fix}`);
  }
  return lines;
}
