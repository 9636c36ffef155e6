/**
 * What an editor adds to its own environment for a sidecar it starts (`tandem bridge`,
 * `tandem lsp`), as docs/bridge-protocol.md ("Framing") tells adapter authors:
 * - glibc's threshold for mapping a buffer on its own, unless `env` sets one: glibc otherwise
 *   keeps the buffers of large diffs in its heap once they are freed;
 * - no extra CA certificates: Node reads and parses them as it starts, before any of Tandem's
 *   code runs, and a sidecar makes no TLS connection.
 */
export function sidecarEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    ...(env.GLIBC_TUNABLES === undefined && {
      GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536',
    }),
    NODE_EXTRA_CA_CERTS: '',
  };
}
