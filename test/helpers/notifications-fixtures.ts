import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { call, type Answer, type World } from './webhooks-fixtures.js';

/**
 * What the notification tests share: real receivers started by the test (an HTTP receiver that records
 * what it got and answers from a script, an SMTP sink that parses each message), destinations made
 * through the API, and waiting on a condition rather than for a time.
 */

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the receiver answered. */
  readonly status: number;
}

export interface HttpReceiver {
  readonly url: string;
  readonly received: Received[];
  /** Answers for the next requests to `path`, in order (200 once the script runs out). */
  script(path: string, statuses: readonly number[]): void;
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const received: Received[] = [];
  const scripts = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const status = scripts.get(path)?.shift() ?? 200;
      received.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `refused ${status}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface SmtpSink {
  readonly port: number;
  readonly mails: ParsedMail[];
  /** Reply codes for the next messages' DATA, in order (accepted once the script runs out). */
  script(codes: readonly number[]): void;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ParsedMail[] = [];
  const codes: number[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const code = codes.shift();
          if (code !== undefined) {
            const error = Object.assign(new Error(`refused ${code}`), { responseCode: code });
            callback(error);
            return;
          }
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    mails,
    script: (next) => void codes.push(...next),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `done()` holds, checking each few milliseconds; fails after `timeoutMs`. */
export async function until(done: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Creates a destination as alice (admin of acme); throws unless 201. */
export async function createDestination(
  world: World,
  fields: Record<string, unknown>,
  who = 'alice',
  org = 'acme',
): Promise<Record<string, any>> {
  const created = await call(
    world,
    who,
    'POST',
    '/notifications/destinations',
    { name: `d-${Math.random().toString(36).slice(2, 8)}`, ...fields },
    org,
  );
  if (created.status !== 201)
    throw new Error(`POST /notifications/destinations answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body;
}

export type { Answer };
