/**
 * Prepares a Piper voice (`voice.onnx` + `voice.onnx.json`) for sherpa-onnx's VITS loader, which reads the
 * sample rate and phonemizer settings from the model's ONNX metadata and the symbol table from tokens.txt:
 *   node scripts/piper-prep.ts <voice.onnx> <voice.onnx.json> <out-dir>
 * writes <out-dir>/model.onnx (the model with `metadata_props` appended) and <out-dir>/tokens.txt.
 * Only Node's own modules: scripts/install-speech.sh runs it before `npm ci`.
 */
import { copyFile, mkdir, readFile, rename, appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface PiperConfig {
  audio: { sample_rate: number };
  espeak: { voice: string };
  num_speakers: number;
  language?: { name_english?: string };
  phoneme_id_map: Record<string, number[]>;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field: tag (field number, wire type 2), length, bytes. */
function lengthDelimited(field: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

/**
 * One ModelProto `metadata_props` entry (field 14, a StringStringEntryProto of key = 1, value = 2). A
 * serialized message may be followed by more occurrences of a repeated field, so appending them to the
 * file is a valid way to add metadata without an ONNX library.
 */
function metadataEntry(key: string, value: string): Buffer {
  const entry = Buffer.concat([lengthDelimited(1, Buffer.from(key)), lengthDelimited(2, Buffer.from(value))]);
  return lengthDelimited(14, entry);
}

async function main(): Promise<void> {
  const [modelPath, configPath, outDir] = process.argv.slice(2);
  if (!modelPath || !configPath || !outDir) {
    console.error('usage: node scripts/piper-prep.ts <voice.onnx> <voice.onnx.json> <out-dir>');
    process.exit(2);
  }
  const config = JSON.parse(await readFile(configPath, 'utf8')) as PiperConfig;
  const metadata: Record<string, string> = {
    model_type: 'vits',
    comment: 'piper',
    voice: config.espeak.voice,
    has_espeak: '1',
    n_speakers: String(config.num_speakers),
    sample_rate: String(config.audio.sample_rate),
    language: config.language?.name_english ?? 'English',
  };
  await mkdir(outDir, { recursive: true });
  // Written under a temporary name and renamed, so an interrupted run never leaves a half-prepared model.
  const partial = path.join(outDir, 'model.onnx.partial');
  await copyFile(modelPath, partial);
  await appendFile(partial, Buffer.concat(Object.entries(metadata).map(([key, value]) => metadataEntry(key, value))));
  const tokens = Object.entries(config.phoneme_id_map).map(([symbol, ids]) => `${symbol} ${ids[0]}\n`).join('');
  await writeFile(path.join(outDir, 'tokens.txt'), tokens);
  await rename(partial, path.join(outDir, 'model.onnx'));
}

await main();
