#!/usr/bin/env sh
# Installs a built smsdesk executable as a hardened systemd service:
#   npm run build && sudo ./install.sh [--public-url https://sms.example.com] [--port 8080] [--trusted-proxies 127.0.0.1,::1]
#                                      [--data-dir /var/lib/smsdesk]
#   ./install.sh --dry-run --root DIR ...   writes the files under DIR and prints the commands it would run (no root needed)
set -eu

PREFIX=/usr/local/bin
DATA_DIR=/var/lib/smsdesk
PORT=8080
PUBLIC_URL=""
TRUSTED_PROXIES=""
DRY_RUN=0
ROOT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --public-url) PUBLIC_URL="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --data-dir) DATA_DIR="$2"; shift 2 ;;
    --trusted-proxies) TRUSTED_PROXIES="$2"; shift 2 ;;
    --dry-run) DRY_RUN=1; shift ;;
    --root) ROOT="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$ROOT" ] && [ "$DRY_RUN" = 0 ] && { echo "--root is for --dry-run" >&2; exit 2; }
[ "$DRY_RUN" = 1 ] && [ -z "$ROOT" ] && { echo "--dry-run needs --root DIR (where to write the files)" >&2; exit 2; }
case "$PORT" in ''|*[!0-9]*) echo "--port must be a number" >&2; exit 2 ;; esac
case "$DATA_DIR" in /*) ;; *) echo "--data-dir must be an absolute path" >&2; exit 2 ;; esac

# Commands that change the system run for real, or are printed in a dry run.
run() {
  if [ "$DRY_RUN" = 1 ]; then echo "would run: $*"; else "$@"; fi
}

BIN="$(dirname "$0")/dist/smsdesk"
if [ "$DRY_RUN" = 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "run as root (sudo ./install.sh)" >&2; exit 1; }
  [ -x "$BIN" ] || { echo "dist/smsdesk is missing: run 'npm run build' first" >&2; exit 1; }
fi

# A system user with no shell and no login owns the data; the service runs as it.
id smsdesk >/dev/null 2>&1 || run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin smsdesk
mkdir -p "$ROOT$DATA_DIR" "$ROOT/etc/systemd/system"
chmod 0700 "$ROOT$DATA_DIR"
run chown smsdesk:smsdesk "$DATA_DIR"
run install -m 0755 "$BIN" "$PREFIX/smsdesk"

# Settings that hold secrets (SMTP_URL's password, METRICS_TOKEN) go here, readable by root only; kept on reinstall.
ENV_FILE="$ROOT/etc/smsdesk.env"
if [ ! -e "$ENV_FILE" ]; then
  (umask 077 && cat > "$ENV_FILE" <<'ENV'
# smsdesk settings (systemctl restart smsdesk after a change). See `smsdesk --help`.
# SMTP_URL=smtps://user:password@smtp.example.com:465
# SMTP_FROM=sms@example.com
# METRICS_TOKEN=a-long-random-string
ENV
  )
fi
chmod 0600 "$ENV_FILE"

cat > "$ROOT/etc/systemd/system/smsdesk.service" <<UNIT
[Unit]
Description=smsdesk SMS marketing appliance
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=smsdesk
Group=smsdesk
Environment=NODE_ENV=production
Environment=PORT=$PORT
Environment=DATA_DIR=$DATA_DIR
${PUBLIC_URL:+Environment=PUBLIC_URL=$PUBLIC_URL
}${TRUSTED_PROXIES:+Environment=TRUSTED_PROXIES=$TRUSTED_PROXIES
}EnvironmentFile=-/etc/smsdesk.env
ExecStart=$PREFIX/smsdesk
Restart=on-failure
RestartSec=5
TimeoutStopSec=30
UMask=0077
# Hardening: the service may write only its data folder. MemoryDenyWriteExecute is left out on purpose: Bun's
# JavaScript compiler needs writable, executable memory.
NoNewPrivileges=true
ProtectSystem=strict
ReadWritePaths=$DATA_DIR
ProtectHome=true
PrivateTmp=true
PrivateDevices=true
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectKernelLogs=true
ProtectControlGroups=true
ProtectClock=true
ProtectHostname=true
RestrictNamespaces=true
RestrictRealtime=true
RestrictSUIDSGID=true
LockPersonality=true
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
CapabilityBoundingSet=
AmbientCapabilities=
SystemCallArchitectures=native
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
UNIT

run systemctl daemon-reload
run systemctl enable --now smsdesk
echo "smsdesk listens on 127.0.0.1:$PORT. Create the first administrator with:"
echo "  sudo -u smsdesk DATA_DIR=$DATA_DIR $PREFIX/smsdesk admin create --email you@example.com"
echo "Put SMTP_URL, SMTP_FROM and METRICS_TOKEN in /etc/smsdesk.env, then: systemctl restart smsdesk"
echo "Check the installation at any time: sudo -u smsdesk DATA_DIR=$DATA_DIR $PREFIX/smsdesk doctor"
cat <<'PROXY'

Behind a reverse proxy (nginx, Caddy, a load balancer) that terminates HTTPS:
  - TLS: serve smsdesk only over https. Caddy obtains certificates by itself
    (sms.example.com { reverse_proxy 127.0.0.1:8080 }); with nginx use certbot and
    proxy_pass http://127.0.0.1:8080; plus the Upgrade/Connection headers for the WebSocket at /ws.
  - PUBLIC_URL is the address browsers open (https://sms.example.com): sign-in and every change must come from a
    page of that origin, so the proxy must pass the Host and Origin headers through unchanged. SMS providers post
    their webhooks to PUBLIC_URL too.
  - The proxy must set X-Forwarded-For (nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    Caddy does it by itself), and smsdesk must be told to believe it: TRUSTED_PROXIES lists the proxy's own
    addresses or CIDRs, e.g. TRUSTED_PROXIES=127.0.0.1,::1 for a proxy on this machine (or --trusted-proxies
    when installing). Without it every visitor shares the proxy's address, and one person's wrong passwords or
    requests would slow down everyone. Never list an address that clients can reach smsdesk from directly.
PROXY
