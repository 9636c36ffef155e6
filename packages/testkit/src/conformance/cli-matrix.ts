/**
 * Which whole-CLI scenarios an editor version runs, and with which CLI (docs/ci.md, "The
 * matrix"). An older version runs each scenario once, with one of the two CLIs: what differs
 * between versions is the editor's side (its terminal, its messages, its buffers), which one CLI
 * shows. The newest runs accept and reject with both, and each other scenario with the CLI its
 * editor's oldest did not take.
 */
import type { CliName } from '../real-clients/cli-launch.js';
import type { CliScenarioDriver } from './cli-driver.js';
import { runCliScenarios, type CliScenario, type ClaudeOnlyScenario } from './cli-scenarios.js';

type ModelCli = Exclude<CliName, 'claude'>;

/** The CLI of each scenario on an older version; `shifted` gives each scenario the other one. */
const TURNS: Record<Exclude<CliScenario, ClaudeOnlyScenario>, ModelCli> = {
  accept: 'gemini',
  reject: 'qwen',
  'approve-in-cli': 'gemini',
  'cancel-in-cli': 'qwen',
  'own-pane': 'gemini',
};

const OTHER: Record<ModelCli, ModelCli> = { gemini: 'qwen', qwen: 'gemini' };

/** Which CLI runs `scenario` on an older version, taking turns (the other one when `shifted`). */
export function olderVersionCli(
  scenario: Exclude<CliScenario, ClaudeOnlyScenario>,
  shifted: boolean,
): ModelCli {
  return shifted ? OTHER[TURNS[scenario]] : TURNS[scenario];
}

/** The scenarios the newest version runs with both CLIs: where their diffs differ most. */
const WITH_BOTH: readonly (keyof typeof TURNS)[] = ['accept', 'reject'];

/**
 * Registers the whole-CLI scenarios for `driver` on the editor version labelled `label`: each
 * scenario with one CLI on the oldest version, taking turns (the other one when `shifted`); on
 * `newest`, accept and reject with both and the others with the CLI the oldest did not take, so
 * that an editor's two versions together run every scenario with each CLI.
 */
export function runCliMatrix(
  driver: CliScenarioDriver,
  label: string | undefined,
  shifted: boolean,
): void {
  const newest = label === 'newest';
  for (const scenario of Object.keys(TURNS) as (keyof typeof TURNS)[]) {
    const clis =
      newest && WITH_BOTH.includes(scenario)
        ? undefined
        : [olderVersionCli(scenario, newest ? !shifted : shifted)];
    runCliScenarios(driver, { scenarios: [scenario], ...(clis && { clis }) });
  }
}
