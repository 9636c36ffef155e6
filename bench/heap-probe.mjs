// Loaded into a sidecar by bench/sidecar.ts (`node --expose-gc --import`): on SIGUSR2 it collects
// all garbage and writes the heap that is still in use, so that growth is told from garbage.
process.on('SIGUSR2', () => {
  globalThis.gc();
  process.stderr.write(`heap-probe: ${process.memoryUsage().heapUsed}\n`);
});
