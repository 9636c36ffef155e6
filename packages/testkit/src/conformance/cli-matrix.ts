/**
 * Which whole-CLI scenarios an editor version runs, and with which CLI (docs/ci.md, "The
 * matrix"). The newest version of each editor runs every scenario with Gemini CLI and with Qwen
 * Code. An older version runs each scenario once, with one of them: what differs between
 * versions is the editor's side (its terminal, its messages, its buffers), which one CLI shows;
 * what differs between the CLIs the newest versions show in full.
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

/**
 * Registers the whole-CLI scenarios for `driver` on the editor version labelled `label`: every
 * scenario with both CLIs on `newest`, each scenario with one CLI on the others. Editors whose
 * oldest versions are `shifted` take the other CLI for each scenario, so that the oldest
 * versions together still run every scenario with each CLI.
 */
export function runCliMatrix(
  driver: CliScenarioDriver,
  label: string | undefined,
  shifted: boolean,
): void {
  if (label === 'newest') {
    runCliScenarios(driver);
    return;
  }
  for (const scenario of Object.keys(TURNS) as (keyof typeof TURNS)[]) {
    runCliScenarios(driver, { scenarios: [scenario], clis: [olderVersionCli(scenario, shifted)] });
  }
}
