import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;

/** Structured JSON logs, one object a line, on standard output unless a destination is given. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'svcd' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-internal-token"]', 'req.headers.cookie'], remove: true },
    },
    destination,
  );
}
