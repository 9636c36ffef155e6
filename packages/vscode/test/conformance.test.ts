/**
 * The adapter conformance suite (`@tandem/testkit`), run on VS Code: code-server in Chromium
 * driven through the page (keys, clicks, the command palette; the testkit's
 * `vscodeAdapterDriver`), judged by the real Gemini CLI and Qwen Code clients.
 */
import { runAdapterConformance, vscodeAdapterDriver } from '@tandem/testkit';

runAdapterConformance(vscodeAdapterDriver());
