#!/usr/bin/env bash
# Full-page screenshots of every .html page of a built report site, with headless Chromium.
#
#   scripts/screenshot_report.sh [SITE_DIR [OUT_DIR]]
#
# SITE_DIR defaults to out/report, OUT_DIR to <SITE_DIR's parent>/report-screenshots
# (out/report-screenshots). The window is 1280 px wide and at least 4000 px tall, taller for
# game pages with several hand sizes (SCREENSHOT_WIDTH / _HEIGHT / _MAX_HEIGHT override). One PNG per page (index.png, hoffer.png, ...). Exits 1 if any
# page fails (Chromium error, timeout or an empty image), 2 if Chromium is not installed or
# the site folder is missing. Chromium runs with a throw-away profile and no network
# features; pages are opened from file:// URLs.
set -u

SITE=${1:-out/report}
OUT=${2:-$(dirname "$SITE")/report-screenshots}
WIDTH=${SCREENSHOT_WIDTH:-1280}
HEIGHT=${SCREENSHOT_HEIGHT:-4000}
TIMEOUT=${SCREENSHOT_TIMEOUT:-60}
MAX_HEIGHT=${SCREENSHOT_MAX_HEIGHT:-16000}

CHROME=""
for c in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$c" >/dev/null 2>&1; then CHROME=$(command -v "$c"); break; fi
done
if [ -z "$CHROME" ]; then
    echo "screenshot_report: Chromium not found; install it with: apt-get install chromium" >&2
    exit 2
fi
if [ ! -d "$SITE" ]; then
    echo "screenshot_report: no site folder $SITE (build the report first)" >&2
    exit 2
fi

SITE_ABS=$(cd "$SITE" && pwd)
mkdir -p "$OUT"
OUT_ABS=$(cd "$OUT" && pwd)
PROFILE=$(mktemp -d)
trap 'rm -rf "$PROFILE"' EXIT

shopt -s nullglob
pages=("$SITE_ABS"/*.html)
if [ ${#pages[@]} -eq 0 ]; then
    echo "screenshot_report: no .html pages in $SITE" >&2
    exit 1
fi

failed=0
for page in "${pages[@]}"; do
    name=$(basename "$page" .html)
    shot="$OUT_ABS/$name.png"
    # a window tall enough for the whole page: game pages grow with their hand-size
    # sections (about 4,800 px each); Chromium cannot render much beyond 16,000 px
    sections=$(grep -o 'class="size"' "$page" | wc -l)
    height=$(( HEIGHT > 1500 + 4800 * sections ? HEIGHT : 1500 + 4800 * sections ))
    note=""
    if [ "$height" -gt "$MAX_HEIGHT" ]; then
        height=$MAX_HEIGHT; note=" (page longer than ${MAX_HEIGHT}px: top part only)"
    fi
    tmp="$OUT_ABS/.$name.part.png"
    rm -f "$tmp"
    log=$(timeout "$TIMEOUT" "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --hide-scrollbars --user-data-dir="$PROFILE" \
        --screenshot="$tmp" --window-size="$WIDTH,$height" "file://$page" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && [ -s "$tmp" ] && [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' \n')" = "89504e47" ]; then
        mv -f "$tmp" "$shot"
        echo "ok    $name.html -> $shot$note"
    else
        rm -f "$tmp"
        echo "FAIL  $name.html (exit $rc)" >&2
        printf "%s\n" "$log" | grep -v dbus | tail -n 5 >&2
        failed=$((failed + 1))
    fi
done

if [ $failed -gt 0 ]; then
    echo "screenshot_report: $failed of ${#pages[@]} page(s) failed" >&2
    exit 1
fi
echo "screenshot_report: ${#pages[@]} page(s) in $OUT_ABS"
