#!/usr/bin/env bash
# The browser test of `pingvinas serve` (tests/test_serve_browser.py): Debian's chromium and
# chromium-driver (installed with apt-get when missing), Selenium from PyPI pointed at them (no
# driver download), a whole Fish game played by clicks against the engine. Called by .ci/run
# inside its virtual environment; runs alone too: bash .ci/browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        # CI runs as root on Debian and installs them; elsewhere (a macOS runner, a user's
        # machine) say so and let the rest of .ci/run go on.
        echo "browser: SKIPPED: /usr/bin/chromium or /usr/bin/chromedriver is missing and apt-get cannot install them here (needs root and apt-get)"
        exit 0
    fi
    echo "browser: installing chromium and chromium-driver with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
python -m pip install --quiet "selenium>=4.20"
# Selenium must not look for (or report to) anything on the network: the paths are explicit.
export SE_OFFLINE=true SE_AVOID_STATS=true
PINGVINAS_REQUIRE_BROWSER=1 python -m pytest -q -p no:cacheprovider tests/test_serve_browser.py
