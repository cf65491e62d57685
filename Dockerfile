# MITRA on the collaboration's own hardware: one image with the app, the
# ingestion pipeline (Chromium + Tesseract) and the packaged models.
# Real models (DPR, the ms-marco cross-encoder, Mistral in Ollama) are mounted or
# reached at run time; nothing is downloaded from a model hub.
FROM python:3.11-slim-bookworm

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      tesseract-ocr tesseract-ocr-eng chromium chromium-driver poppler-utils \
 && rm -rf /var/lib/apt/lists/*

# A non-root user owns the code, the venv and the data: a compromised app cannot
# change the image. /data is created here so a new named volume inherits its owner.
RUN useradd --create-home --uid 1000 --user-group mitra \
 && mkdir -p /app /data \
 && chown mitra:mitra /app /data

WORKDIR /app
USER mitra
# The setup script CI uses (system packages are already there, so it needs no root);
# the venv is built as mitra so no second, chowned copy of it bloats the image.
ENV PIP_NO_CACHE_DIR=1
COPY --chown=mitra:mitra requirements.txt pyproject.toml README.md ./
COPY --chown=mitra:mitra scripts/ scripts/
COPY --chown=mitra:mitra mitra/ mitra/
COPY --chown=mitra:mitra ingest/ ingest/
RUN PYTHON=python3 bash scripts/setup.sh
COPY --chown=mitra:mitra . .

# The encoder graph writers export for ONNX Runtime (once) is kept on the volume too.
ENV MITRA_DATA_DIR=/data \
    MITRA_ENCODER_CACHE_DIR=/data/models/onnx \
    HF_HUB_OFFLINE=1 \
    PATH=/app/.venv/bin:$PATH
VOLUME ["/data"]
EXPOSE 8501
# Streamlit's own health endpoint; python, because the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true"]
