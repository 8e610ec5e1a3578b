#!/usr/bin/env bash
# nginx on 127.0.0.1 for the benchmarks' --server runs (the README's figures come from it):
#   Benchmarks/nginx/serve.sh [start]   http on :${HTTP_PORT:-18180}, https + HTTP/2 on :${HTTPS_PORT:-18543}
#   Benchmarks/nginx/serve.sh stop
# It serves what both benchmark executables ask for: GET /bytes/N (N zero bytes, for every N in
# $SIZES) and POST /upload (any size, answered "ok"). A throwaway self-signed certificate for
# 127.0.0.1 is made with openssl. Installs nginx from Debian when missing.
#   swift run -c release --package-path Benchmarks benchmarks --server http://127.0.0.1:18180
#   swift run -c release --package-path Benchmarks peers --server http://127.0.0.1:18180
set -euo pipefail
STATE=${BENCH_NGINX_DIR:-${TMPDIR:-/tmp}/asyncnetworking-bench-nginx}
HP=${HTTP_PORT:-18180} SP=${HTTPS_PORT:-18543}
SIZES=${SIZES:-"128 1024 16384 1048576 67108864 104857600 1073741824"}
if [ "${1:-start}" = "stop" ]; then
  [ -f "$STATE/nginx.pid" ] && kill "$(cat "$STATE/nginx.pid")" 2>/dev/null && echo "nginx stopped" || true
  exit 0
fi
command -v nginx >/dev/null || { apt-get update -qq; apt-get install -y -qq nginx >/dev/null; }
mkdir -p "$STATE/www/bytes" "$STATE/body"
for n in $SIZES; do [ -f "$STATE/www/bytes/$n" ] || truncate -s "$n" "$STATE/www/bytes/$n"; done
if [ ! -f "$STATE/cert.pem" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$STATE/key.pem" -out "$STATE/cert.pem" -days 30 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2>/dev/null
fi
cat > "$STATE/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $STATE/nginx.pid;
error_log $STATE/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/octet-stream;
  keepalive_requests 1000000;
  sendfile on;
  client_body_temp_path $STATE/body;
  server {
    listen 127.0.0.1:$HP;
    listen 127.0.0.1:$SP ssl http2;
    ssl_certificate $STATE/cert.pem;
    ssl_certificate_key $STATE/key.pem;
    root $STATE/www;
    location /upload { client_max_body_size 4g; client_body_buffer_size 1m; return 200 "ok"; }
  }
}
CONF
[ -f "$STATE/nginx.pid" ] && kill "$(cat "$STATE/nginx.pid")" 2>/dev/null && sleep 0.3 || true
nginx -c "$STATE/nginx.conf" -p "$STATE"
sleep 0.3
echo "nginx http://127.0.0.1:$HP  https://127.0.0.1:$SP (HTTP/2; certificate $STATE/cert.pem)  serving /bytes/{$SIZES} and POST /upload"
