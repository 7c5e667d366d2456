# Shared by the report's browser tests (sourced, not run): Chromium found
# or installed, a temporary folder, and `browser`, headless Chromium with
# software WebGL.
#
# Chromium (Debian `chromium`, ~120 MB with its libraries, about 10-60 s to
# install) comes from scripts/install-deps test; if it is missing the test
# installs it when it runs as root, and otherwise skips (exit 77) saying
# why. Everything the browser writes (profile, screenshot) goes to $tmp,
# removed on exit.
#   . browser_harness.sh <test name>
harness_name="$1"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "$harness_name: installing chromium (Debian package)"
    start=$(date +%s)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      chromium >/dev/null 2>&1 || true
    echo "$harness_name: install took $(( $(date +%s) - start )) s"
  fi
  if ! command -v chromium >/dev/null 2>&1; then
    echo "SKIPPED: $harness_name: chromium is not installed and cannot" \
         "be installed here (needs root and apt-get; run scripts/install-deps test)"
    exit 77
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# browser <chromium arguments...>: one headless page load, 5 s of virtual
# time, console messages on stderr.
browser() {
  timeout 120 chromium --headless --no-sandbox --no-first-run \
    --user-data-dir="$tmp/profile" --use-angle=swiftshader \
    --enable-unsafe-swiftshader --window-size=1000,800 \
    --virtual-time-budget=5000 --enable-logging=stderr --v=0 "$@"
}

# page_result <dom.html>: the JSON the page wrote into <pre id="selftest">.
page_result() {
  sed -n 's/.*<pre id="selftest">\([^<]*\)<\/pre>.*/\1/p' "$1"
}
