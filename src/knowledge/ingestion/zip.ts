import zlib from 'node:zlib';

const limits = {
  entries: 5000,
  totalBytes: 256 * 1024 * 1024,
  /** Uncompressed-to-compressed ratio above which a large entry is a bomb; real DOCX XML is about 10. */
  ratio: 200,
  ratioFloorBytes: 1024 * 1024,
};

export type ZipInspection = { ok: true; names: string[] } | { ok: false; reason: string };

/**
 * Reads a ZIP's central directory and inflates every entry with its declared size as a hard cap, so an
 * archive that lies about its sizes or expands to gigabytes is refused before any library unpacks it.
 */
export function inspectZip(data: Buffer): ZipInspection {
  if (data.length < 22 || data.readUInt32LE(0) !== 0x04034b50) return { ok: false, reason: 'The file is not a Word document (not a ZIP archive).' };
  let end = -1;
  for (let offset = data.length - 22; offset >= Math.max(0, data.length - 22 - 65535); offset--) {
    if (data.readUInt32LE(offset) === 0x06054b50) {
      end = offset;
      break;
    }
  }
  if (end === -1) return { ok: false, reason: 'The file is a damaged ZIP archive (no central directory).' };
  const count = data.readUInt16LE(end + 10);
  if (count > limits.entries) return { ok: false, reason: `The archive holds ${count} files; at most ${limits.entries} are accepted.` };
  let offset = data.readUInt32LE(end + 16);
  const names: string[] = [];
  let total = 0;
  for (let index = 0; index < count; index++) {
    if (offset + 46 > data.length || data.readUInt32LE(offset) !== 0x02014b50) {
      return { ok: false, reason: 'The file is a damaged ZIP archive.' };
    }
    const method = data.readUInt16LE(offset + 10);
    const compressed = data.readUInt32LE(offset + 20);
    const size = data.readUInt32LE(offset + 24);
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    const localOffset = data.readUInt32LE(offset + 42);
    const name = data.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (size === 0xffffffff || compressed === 0xffffffff) return { ok: false, reason: 'The archive is too large to process (ZIP64).' };
    total += size;
    if (total > limits.totalBytes) return { ok: false, reason: 'The archive expands to more than 256 MB; it looks like a decompression bomb.' };
    if (size > limits.ratioFloorBytes && size > compressed * limits.ratio) {
      return { ok: false, reason: `The archive entry ${name} expands ${Math.round(size / Math.max(compressed, 1))} times; it looks like a decompression bomb.` };
    }
    if (localOffset + 30 > data.length || data.readUInt32LE(localOffset) !== 0x04034b50) return { ok: false, reason: 'The file is a damaged ZIP archive.' };
    const start = localOffset + 30 + data.readUInt16LE(localOffset + 26) + data.readUInt16LE(localOffset + 28);
    const body = data.subarray(start, start + compressed);
    if (method === 8) {
      try {
        // One byte more than declared: anything that inflates past the declared size lied about it.
        const inflated = zlib.inflateRawSync(body, { maxOutputLength: size + 1 });
        if (inflated.length !== size) return { ok: false, reason: `The archive entry ${name} is not the size it declares.` };
      } catch (error) {
        const tooBig = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
        return { ok: false, reason: tooBig ? `The archive entry ${name} expands past its declared size; it looks like a decompression bomb.` : 'The file is a damaged ZIP archive.' };
      }
    } else if (method !== 0) {
      return { ok: false, reason: `The archive uses an unsupported compression method (${method}).` };
    }
    names.push(name);
  }
  return { ok: true, names };
}
