FROM python:3.11-slim
WORKDIR /srv
COPY pyproject.toml ./
COPY app app
COPY services services
COPY models models
COPY jobs jobs
COPY workers workers
RUN pip install --no-cache-dir .
EXPOSE 9000
CMD ["commerce", "serve", "--host", "0.0.0.0", "--port", "9000"]
