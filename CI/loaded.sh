#!/usr/bin/env bash
# The slow machine, rehearsed (make test-loaded, .ci/run): runs COMMAND with two CPU-bound
# processes beside it, one per core of the 2-core class, so that every test gets about half the
# CPU it gets on an idle machine (a busy CI machine, or one 2x slower). A verdict that depends on
# the machine's speed fails here. The two processes are this script's own and are stopped when
# the command ends, or when the script is interrupted.
#   bash CI/loaded.sh COMMAND [ARGS...]
set -u
[ $# -gt 0 ] || { echo "usage: loaded.sh COMMAND [ARGS...]"; exit 2; }
hogs=() cmd=""
stop() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; hogs=(); }
# a signal to this script stops the command and the two processes at once (the command runs in
# the background and is waited for, so that the trap is not deferred until it ends)
trap '[ -n "$cmd" ] && kill "$cmd" 2>/dev/null; stop; exit 130' INT TERM
trap stop EXIT
for _ in 1 2; do
  (trap - INT TERM EXIT; exec awk 'BEGIN { for (;;) x++ }') &
  hogs+=($!)
done
echo "== loaded: two CPU-bound processes beside the command (pids ${hogs[*]})"
start=$SECONDS
"$@" &
cmd=$!
wait "$cmd"
rc=$?
cmd=""
echo "== loaded: the command took $((SECONDS - start)) s beside two CPU-bound processes (exit $rc)"
exit $rc
