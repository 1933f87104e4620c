#!/usr/bin/env sh
# Installs a built smsdesk executable as a systemd service:
#   npm run build && sudo ./install.sh [--public-url https://sms.example.com] [--port 8080] [--trusted-proxies 127.0.0.1,::1]
set -eu

PREFIX=/usr/local/bin
DATA_DIR=/var/lib/smsdesk
PORT=8080
PUBLIC_URL=""
TRUSTED_PROXIES=""
while [ $# -gt 0 ]; do
  case "$1" in
    --public-url) PUBLIC_URL="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --data-dir) DATA_DIR="$2"; shift 2 ;;
    --trusted-proxies) TRUSTED_PROXIES="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

[ "$(id -u)" = 0 ] || { echo "run as root (sudo ./install.sh)" >&2; exit 1; }
BIN="$(dirname "$0")/dist/smsdesk"
[ -x "$BIN" ] || { echo "dist/smsdesk is missing: run 'npm run build' first" >&2; exit 1; }

id smsdesk >/dev/null 2>&1 || useradd --system --home "$DATA_DIR" --shell /usr/sbin/nologin smsdesk
install -d -o smsdesk -m 0700 "$DATA_DIR"
install -m 0755 "$BIN" "$PREFIX/smsdesk"

cat > /etc/systemd/system/smsdesk.service <<UNIT
[Unit]
Description=smsdesk SMS marketing appliance
After=network-online.target

[Service]
User=smsdesk
Environment=PORT=$PORT
Environment=DATA_DIR=$DATA_DIR
${PUBLIC_URL:+Environment=PUBLIC_URL=$PUBLIC_URL}
${TRUSTED_PROXIES:+Environment=TRUSTED_PROXIES=$TRUSTED_PROXIES}
EnvironmentFile=-/etc/smsdesk.env
ExecStart=$PREFIX/smsdesk
Restart=on-failure
NoNewPrivileges=true
ProtectSystem=strict
ReadWritePaths=$DATA_DIR

[Install]
WantedBy=multi-user.target
UNIT

systemctl daemon-reload
systemctl enable --now smsdesk
echo "smsdesk is running on port $PORT. Create the first administrator with:"
echo "  sudo -u smsdesk DATA_DIR=$DATA_DIR $PREFIX/smsdesk admin create --email you@example.com"
echo "Put SMTP_URL, SMTP_FROM and PUBLIC_URL in /etc/smsdesk.env, then: systemctl restart smsdesk"
cat <<'PROXY'

Behind a reverse proxy (nginx, Caddy, a load balancer) that terminates HTTPS:
  - PUBLIC_URL is the address browsers open (https://sms.example.com): sign-in and every change must come from a
    page of that origin, so the proxy must pass the Host and Origin headers through unchanged.
  - The proxy must set X-Forwarded-For (nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    Caddy does it by itself), and smsdesk must be told to believe it: TRUSTED_PROXIES lists the proxy's own
    addresses or CIDRs, e.g. TRUSTED_PROXIES=127.0.0.1,::1 for a proxy on this machine (or --trusted-proxies
    when installing). Without it every visitor shares the proxy's address, and one person's wrong passwords or
    requests would slow down everyone. Never list an address that clients can reach smsdesk from directly.
PROXY
