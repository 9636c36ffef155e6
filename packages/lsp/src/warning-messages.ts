import type { CompanionWarning } from '@tandem/core';

/**
 * The engine's warnings as the editor's messages (`window/showMessage`), each as it appears:
 * told once while it lasts, and again should it come back once its cause was gone. An editor
 * like Helix shows nothing else of them.
 */
export class WarningMessages {
  private told = new Set<string>();

  constructor(private readonly show: (message: string) => void) {}

  /** The warnings now: those not in the last list are told. */
  changed(warnings: readonly CompanionWarning[]): void {
    const now = new Set<string>();
    for (const warning of warnings) {
      const key = `${warning.code} ${warning.cli ?? ''} ${warning.message}`;
      now.add(key);
      if (!this.told.has(key)) this.show(`Tandem: ${warning.message} ${warning.fix}`);
    }
    this.told = now;
  }
}
