/** The logger the worker writes to: pino's shape, so `svcd` hands in its own; tests hand in a silent one. */
export interface WorkerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export const SILENT_LOG: WorkerLog = Object.freeze({ info() {}, warn() {}, error() {}, debug() {} });
