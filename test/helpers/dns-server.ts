import { createSocket, type Socket } from 'node:dgram';

/** Answers of a tiny authoritative UDP DNS server: name (lower case, no final dot) -> A addresses. */
export type ARecords = Readonly<Record<string, readonly string[]>>;

/**
 * A DNS server on 127.0.0.1 that answers A queries from `records` (NXDOMAIN for an unknown name, an empty
 * answer for another type): enough for probe.dns to be tested against a real resolver exchange.
 */
export async function startDnsServer(records: ARecords): Promise<{ address: string; close(): Promise<void> }> {
  const socket: Socket = createSocket('udp4');
  socket.on('message', (query, peer) => socket.send(answer(query, records), peer.port, peer.address));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return { address: `127.0.0.1:${port}`, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

function answer(query: Buffer, records: ARecords): Buffer {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset]! > 0) {
    const length = query[offset]!;
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  const questionEnd = offset + 5;
  const type = query.readUInt16BE(offset + 1);
  const addresses = records[labels.join('.').toLowerCase()];
  const found = type === 1 && addresses ? addresses : [];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8400 | (addresses ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(found.length, 6);
  const answers = found.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(1, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}
