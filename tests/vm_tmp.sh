#!/bin/bash
cd /work/main && tests/compat/capture --only rxe build tests/compat/golden >/dev/null && echo CAPTURED && meson test -C build --suite softroce --no-rebuild --print-errorlogs 2>&1 | tail -60
