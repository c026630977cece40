import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One regular file as a ustar archive (header, content padded to 512, two empty blocks). */
function tarOneFile(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (text: string, offset: number, length: number) => header.write(text, offset, length, 'ascii');
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0') + '\0';
  field(name, 0, 100);
  field(octal(0o644, 8), 100, 8);
  field(octal(0, 8), 108, 8);
  field(octal(0, 8), 116, 8);
  field(octal(content.length, 12), 124, 12);
  field(octal(0, 12), 136, 12);
  field('        ', 148, 8);
  field('0', 156, 1);
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(octal(sum, 7) + ' ', 148, 8);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Writes an OCI image layout (one layer holding one file) that skopeo can push with `oci:<dir>:<tag>`:
 * the test's own image, so no registry outside this host is needed.
 */
export async function writeOciLayout(dir: string, tag: string, fileContent: string): Promise<{ manifestDigest: string }> {
  const layerTar = tarOneFile('hello.txt', Buffer.from(fileContent));
  const layer = gzipSync(layerTar);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {},
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(layerTar)}`] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${sha256(config)}`, size: config.length },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${sha256(layer)}`, size: layer.length }],
    }),
  );
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  for (const blob of [layer, config, manifest]) await writeFile(join(blobs, sha256(blob)), blob);
  const manifestDigest = `sha256:${sha256(manifest)}`;
  const index = {
    schemaVersion: 2,
    manifests: [
      {
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: manifestDigest,
        size: manifest.length,
        annotations: { 'org.opencontainers.image.ref.name': tag },
      },
    ],
  };
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(dir, 'index.json'), JSON.stringify(index));
  return { manifestDigest };
}
