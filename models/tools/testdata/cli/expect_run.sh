#!/bin/sh
# expect_run.sh STATUS REGEX COMMAND...: runs COMMAND (stdout and stderr together), prints its
# output, and passes when it exits with STATUS and some line matches the extended REGEX.
# (ctest's PASS_REGULAR_EXPRESSION alone ignores the exit status, which is half of these checks.)
want_status=$1
regex=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want_status" ]; then
  echo "expect_run: exit status $status, expected $want_status" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_run: no line matches /$regex/" >&2
  exit 1
fi
exit 0
