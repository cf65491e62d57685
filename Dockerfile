# MITRA on the collaboration's own hardware: one image with the app, the
# ingestion pipeline (Chromium + Tesseract) and the packaged models.
# Real models (DPR, the ms-marco cross-encoder, Mistral in Ollama) are mounted or
# reached at run time; nothing is downloaded from a model hub.
FROM python:3.11-slim-bookworm

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      tesseract-ocr tesseract-ocr-eng chromium chromium-driver poppler-utils \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt pyproject.toml README.md ./
COPY scripts/ scripts/
COPY mitra/ mitra/
COPY ingest/ ingest/
RUN PYTHON=python3 bash scripts/setup.sh
COPY . .

ENV MITRA_DATA_DIR=/data \
    HF_HUB_OFFLINE=1 \
    PATH=/app/.venv/bin:$PATH
VOLUME ["/data"]
EXPOSE 8501
CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true"]
