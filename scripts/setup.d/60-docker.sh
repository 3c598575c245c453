# The Docker daemon (started here when none answers: there is no systemd) and the sandbox image.
if ! docker info >/dev/null 2>&1; then
  step "starting dockerd"
  (setsid dockerd --bridge=none --iptables=false >/tmp/evalkit-dockerd.log 2>&1 &)
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /tmp/evalkit-dockerd.log" >&2; exit 1; }
fi
if ! "$PY" -c 'import sys; from sandboxes.image import image_exists; sys.exit(not image_exists())'; then
  step "building the sandbox image (offline debootstrap when no registry answers; several minutes the first time)"
  "$PY" -m evalkit sandbox build
fi
