// Structured one-line JSON logs on stdout. Callers pass facts, never credentials: request bodies
// and Authorization headers are not logged anywhere.
export type Logger = {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

function write(stream: NodeJS.WriteStream, level: string, component: string, message: string, fields?: Record<string, unknown>) {
  stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields })}\n`);
}

export function createLogger(component: string): Logger {
  return {
    info: (message, fields) => write(process.stdout, 'info', component, message, fields),
    warn: (message, fields) => write(process.stderr, 'warn', component, message, fields),
    error: (message, fields) => write(process.stderr, 'error', component, message, fields),
  };
}

/** For tests and tools that want silence. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
