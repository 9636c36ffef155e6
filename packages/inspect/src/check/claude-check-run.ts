import {
  buildReport,
  type CheckReport,
  type CheckSection,
  type CheckTarget,
} from './check-report.js';
import type { CompanionAddress } from './check-client.js';
import { checkClaudeLock, checkClaudeSession, checkClaudeUpgrade } from './claude-checks.js';
import { checkClaudeDiffs } from './claude-diff-checks.js';
import type { Person } from './person.js';

export interface ClaudeCheckOptions {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** The companion given by `--port`; otherwise the one Claude Code would take from `dir`. */
  address?: CompanionAddress;
  /** Present with `--interactive`. */
  person?: Person;
}

/** `tandem check --cli claude`: the lock, the upgrade, the session, then the person's part. */
export async function runClaudeChecks(options: ClaudeCheckOptions): Promise<CheckReport> {
  const { dir, person } = options;
  const sections: Record<CheckSection['name'], CheckSection> = {
    Discovery: { name: 'Discovery', checks: [] },
    Security: { name: 'Security', checks: [] },
    Transport: { name: 'Transport', checks: [] },
    Sessions: { name: 'Sessions', checks: [] },
    Selection: { name: 'Selection', checks: [] },
    Diffs: { name: 'Diffs', checks: [] },
  };
  let address = options.address;
  let lockFile: string | undefined;
  let target: CheckTarget | undefined;
  if (address) {
    target = { port: address.port, chosenBy: 'port option', files: [] };
  } else {
    const found = await checkClaudeLock(dir, options.env);
    sections.Discovery.checks.push(...found.checks);
    if (found.target) {
      const { file, ideName, ...companion } = found.target;
      address = companion;
      lockFile = file;
      target = {
        port: companion.port,
        chosenBy: ['claude'],
        ...(ideName && { ideInfo: { name: ideName, displayName: ideName } }),
        files: [file],
      };
    }
  }
  if (address) {
    const upgrade = await checkClaudeUpgrade(address);
    sections.Security.checks.push(...upgrade.security);
    sections.Transport.checks.push(...upgrade.transport, ...(await checkClaudeSession(address)));
    const connects = sections.Transport.checks.every(
      (check) =>
        check.status === 'pass' ||
        !['transport.upgrade', 'transport.initialize'].includes(check.id),
    );
    if (person && connects) {
      const answered = await checkClaudeDiffs(address, dir, lockFile, person);
      sections.Selection.checks.push(...answered.selection);
      sections.Diffs.checks.push(...answered.diffs);
    } else if (person) {
      person.say('the selection and diffs are not checked: Claude Code cannot use this companion');
    }
  }
  return buildReport(
    {
      dir,
      clients: ['claude'],
      interactive: person !== undefined,
      targets: target ? [target] : [],
    },
    Object.values(sections),
  );
}
