#!/bin/sh
# tests/fails-escaped.sh CMD...: CMD must fail (a clear error) and its output (shown) must hold no raw control
# character but newline and tab: text quoted from a file is shown escaped (\x1b), never sent to the terminal.
# Exit 0 when both hold (use with t_grep for the message itself).
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc = 0 ]; then echo "FAIL: succeeded"; exit 1; fi
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')"; then
  echo "FAIL: raw control characters in the output"
  exit 1
fi
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '\302[\200-\237]')"; then
  echo "FAIL: raw C1 control characters in the output"
  exit 1
fi
echo "failed, controls escaped"
