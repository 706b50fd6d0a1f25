# One image running the server on embedded defaults:
#   docker build -t embucket-py . && docker run -p 3000:3000 -v embucket-data:/data embucket-py
# With Java + Spark for the batch jobs (`embucket-py spark-job ...`):
#   docker build --target spark -t embucket-py-spark .
# Install steps live in docker/install.sh, the same script `make test` runs.
FROM python:3.11-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# pyproject.toml names README.md as the package readme, so the build needs it.
COPY pyproject.toml README.md ./
COPY docker/install.sh ./docker/install.sh
COPY embucket_py ./embucket_py
# The postgres extra: the same image serves a shared PostgreSQL metastore by URI.
RUN sh docker/install.sh pip postgres \
    && useradd --create-home --uid 1000 embucket \
    && mkdir /data \
    && chown embucket /data

USER embucket
# The metastore and the file:// warehouse; a named volume keeps them across containers.
VOLUME /data
EXPOSE 3000

# The slim image has no curl: ask /health with Python itself.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/health', timeout=2)"]

# Extra `docker run` arguments are appended: docker run ... embucket-py --log-level debug
ENTRYPOINT ["embucket-py", "serve", "--host", "0.0.0.0", "--data-dir", "/data"]


# Java 17 + PySpark + the Iceberg Spark runtime, for `embucket-py spark-job` (see docker/compose.yaml).
FROM base AS spark
USER root
RUN sh docker/install.sh pip postgres,spark openjdk-17-jre-headless libhttpclient5-java libhttpcore5-java \
    && rm -rf /var/lib/apt/lists/*
USER embucket


# The default target (last stage): the server alone.
FROM base AS server
