// The core tests' engine: the testkit's, on a sandbox's folders.
export { startEngine, type EngineFolders } from '@tandem/testkit';
