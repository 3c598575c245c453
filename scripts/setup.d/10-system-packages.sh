# Debian packages: Docker (code sandboxes), debootstrap (offline sandbox image),
# bubblewrap (local sandbox), cairo (SVG rendering), chromium (the report's browser test).
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v bwrap >/dev/null || need+=(bubblewrap)
ldconfig -p | grep -q libcairo.so.2 || need+=(libcairo2)
command -v chromium >/dev/null || need+=(chromium)
if ((${#need[@]})); then
  step "apt-get install ${need[*]} (a few minutes the first time)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
