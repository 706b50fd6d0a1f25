# One image running the server: docker build -t embucket-py . && docker run -p 3000:3000 embucket-py
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# pyproject.toml names README.md as the package readme, so the build needs it.
COPY pyproject.toml README.md ./
COPY embucket_py ./embucket_py
RUN pip install . \
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
