# syntax=docker/dockerfile:1
# The TriPeaks server: `docker build -t tripeaks .`, then
#   docker run -p 8000:8000 -e DATABASE_URL=postgresql+psycopg://user:pw@db/tripeaks \
#     -e MIGRATE_ON_START=true tripeaks
# Every setting is an environment variable (README: Configuration). Lint: `make lint`.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: the dependencies in a virtualenv -----------------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
# binutils for `strip`: the wheels' extension modules and the libraries they bundle keep
# symbols and debug sections nothing at run time reads (uvloop's most of all); stripping
# what is not needed takes a tenth off the image (tests/image: its size goal).
# gcc, libc6-dev and python3-dev build the solver's C searches (below); none
# of them reaches the runtime stage.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends binutils gcc libc6-dev python3-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# Only the lock (requirements/runtime.txt, `make lock`): the dependency layer is rebuilt
# when the dependencies change, and two builds install the same files, each checked
# against its hash. The packages' own test suites (greenlet's, aiosqlite's, certifi's)
# are left out: nothing imports them, and they would count against the image's size.
COPY requirements/runtime.txt ./
# BUILD_CA_CERTS: PEM certificates this stage alone trusts besides the usual ones, for a
# build behind a TLS-intercepting proxy (the image test sets it). The runtime stage below
# never sees it: the published image trusts only its base's certificates.
ARG BUILD_CA_CERTS=""
RUN if [ -n "$BUILD_CA_CERTS" ]; then \
         printf '%s\n' "$BUILD_CA_CERTS" > /tmp/build-ca.pem \
         && cat /etc/ssl/certs/ca-certificates.crt /tmp/build-ca.pem > /tmp/build-bundle.pem \
         && export PIP_CERT=/tmp/build-bundle.pem; \
       fi \
    && pip install --no-cache-dir --require-hashes -r runtime.txt \
    && pip uninstall --yes pip setuptools \
    && rm -rf /opt/venv/lib/python3*/site-packages/*/tests \
    && find /opt/venv -type f -name '*.so*' -exec strip --strip-unneeded {} +
# The solver's optional C searches (app/engine/solver/*.c, one extension module; setup.py
# builds it the same way for a developer's install): many times the pure Python search's
# speed on a deal's best score, which analyses and each day's challenge par need, and on
# the hint's clearing searches (docs/performance.md has the figures).
COPY app/engine/solver/*.c app/engine/solver/*.h /src/accel/
RUN mkdir /opt/accel \
    && gcc -O2 -shared -fPIC -Wall \
       "-I$(python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
       /src/accel/*.c \
       -o "/opt/accel/_accel$(python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" \
    && strip --strip-debug /opt/accel/*.so

# --- runtime: the app's source, the virtualenv, a non-root user -----------------------
FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="tripeaks" \
      org.opencontainers.image.description="A JSON/HTTP game server for TriPeaks Solitaire"
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    APP_HOME=/app \
    HOST=0.0.0.0 \
    PORT=8000 \
    WORKERS=2 \
    LOG_FORMAT=json \
    MIGRATE_ON_START=false \
    DATABASE_URL=sqlite:////data/tripeaks.sqlite3 \
    DOCS_ENABLED=false \
    METRICS_PUBLIC=false \
    PROMETHEUS_MULTIPROC_DIR=/tmp/tripeaks-metrics
RUN groupadd --system --gid 10001 tripeaks \
    && useradd --system --uid 10001 --gid tripeaks --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin tripeaks \
    && mkdir -p /data /tmp/tripeaks-metrics \
    && chown tripeaks:tripeaks /data /tmp/tripeaks-metrics
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY alembic.ini ./
COPY migrations ./migrations
COPY app ./app
COPY --from=build /opt/accel/ ./app/engine/solver/
COPY web ./web
COPY docker/entrypoint.sh docker/healthcheck.py ./docker/
USER 10001:10001
EXPOSE 8000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "/app/docker/healthcheck.py"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["python", "-m", "app.ops.serve"]
