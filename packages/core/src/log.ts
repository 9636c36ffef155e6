/** A human log. The engine never writes to stdout: a sidecar's stdout is its protocol. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that writes to stderr, prefixed, the default for process hosts. */
export function stderrLogger(prefix = 'tandem'): Logger {
  const write = (level: string, message: string) =>
    process.stderr.write(`[${prefix}] ${level}: ${message}\n`);
  return {
    info: (message) => write('info', message),
    warn: (message) => write('warn', message),
    error: (message) => write('error', message),
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
