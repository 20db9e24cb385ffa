# scripts/cluster.sh's processes, sourced by it (and by test/integration/scripts, which drives
# them alone): each component runs in a session of its own from a pid file in DIR/run, and a pid
# counts as the component's only while its command line names DIR (a pid file can outlive its
# process, and the host reuses pids). Uses DIR, RUN, LOGS, log and die from the sourcing script.

pid_of() { # component -> pid if it is alive and still ours (its command line names DIR)
  local f="$RUN/$1.pid" pid
  [ -f "$f" ] || return 1
  pid="$(cat "$f")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DIR/" || return 1
  echo "$pid"
}

# component, command...: in its own session (a Ctrl-C in the shell that ran `up` does not reach
# it), output to DIR/logs/<component>.log. setsid execs in place, so $! is the component's pid.
# Returns once the child runs the command (or has exited): until its exec the forked child shows
# this script's command line, which pid_of cannot tell from a stranger's, and wait_for would take
# it for a component that exited. On a busy machine that window outlasted wait_for's first check
# (a kube-apiserver "exited" with an empty log, alive when `up` then stopped it).
start() {
  local name="$1" pid i; shift
  setsid "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$RUN/$name.pid"
  # Bounded: a command whose arguments do not name DIR is left to pid_of's later answers.
  for ((i = 0; i < 1000; i++)); do
    pid_of "$name" >/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.01
  done
}

# what, seconds, component, command...: retries the command until it succeeds
wait_for() {
  local what="$1" secs="$2" comp="$3"; shift 3
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ! pid_of "$comp" >/dev/null; then
      die "$comp exited while waiting for $what; the end of $LOGS/$comp.log:
$(tail -n 20 "$LOGS/$comp.log")"
    fi
    ((SECONDS < deadline)) || die "$what: not ready after ${secs}s; see $LOGS/$comp.log"
    sleep 0.2
  done
}

# Processes whose command line names a path under DIR, except this script and its ancestors.
pids_naming_dir() {
  local ancestors=" " p=$$ f pid
  while [ "$p" -gt 1 ]; do
    ancestors+="$p "
    p="$(sed 's/.*) [A-Za-z] \([0-9]*\).*/\1/' "/proc/$p/stat" 2>/dev/null || echo 1)"
    [ -n "$p" ] || p=1
  done
  for f in $(grep -alF -- "$DIR/" /proc/[0-9]*/cmdline 2>/dev/null); do
    pid="${f#/proc/}" pid="${pid%/cmdline}"
    [[ "$ancestors" == *" $pid "* ]] || echo "$pid"
  done
  return 0
}

stop_pids() { # pids...: SIGTERM to all, then SIGKILL to those still alive after 10 s
  local pid i alive=()
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    alive=()
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    [ ${#alive[@]} -gt 0 ] || return 0
    sleep 0.1
  done
  # Only those: a pid that exited meanwhile may be another process's by now.
  kill -KILL "${alive[@]}" 2>/dev/null || true
}
