FROM python:3.11-slim
# The processes run as this unprivileged user, never as root. Stored files (uploads, imports,
# exports) live under /srv/data: docker-compose.yml mounts one volume there in web, worker and
# scheduler, so a file uploaded through web is the file a worker imports, and the reverse.
RUN useradd --system --uid 10001 --user-group --home-dir /srv --no-create-home --shell /usr/sbin/nologin commerce \
    && mkdir -p /srv/data/uploads && chown -R commerce:commerce /srv/data
WORKDIR /srv
COPY pyproject.toml ./
COPY app app
COPY services services
COPY models models
COPY jobs jobs
COPY workers workers
RUN pip install --no-cache-dir .
ENV FILE_STORAGE_DIR=/srv/data/uploads
USER commerce
EXPOSE 9000
CMD ["commerce", "serve", "--host", "0.0.0.0", "--port", "9000"]
