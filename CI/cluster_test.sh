#!/bin/bash
# cluster: `ccb reproduce` on a real cluster engine (issue 25; guide §11).
# The quick-tier reproduction of the cases CASES runs three ways on this machine and must give the
# same results:
#   A. in-process:    ccb reproduce CASES --tier quick --out A
#   B. GNU parallel:  ccb reproduce CASES --tier quick --emit-manifest m.txt --out B;
#                     parallel -j CORES < m.txt; ccb reproduce CASES --tier quick --from B
#   C. Slurm:         ... --emit-manifest s.sh --format slurm --out C; sbatch --wait s.sh on a
#                     single-node Slurm (slurmctld + slurmd + munged of this script, on private
#                     ports and sockets, stopped at the end); ccb reproduce --tier quick --from C
# Equal means: every case's gates.csv (the verdicts and measured values) and every table of
# every study (*.csv under the case's directories, columns named wall left out: wall times are
# the one thing two executions do not share) byte for byte. Also, on the Slurm tree: a run made
# to fail on the cluster is recorded as failed (read back, exit 1 as in-process), and a run that
# never ran is named (exit 2). Each engine's wall time is printed (the closing note's numbers).
# Exit 77 (skip) where GNU parallel or Slurm is missing or Slurm cannot start (not root).
# CASES: the cases whose runs cover what the engines must carry from a process to another, in
# six of the ten cases' quick tiers: every convex approximation, TAMSI and the continuous model
# with implicit Euler, RK3 and GSL (the conveyor, the box), free bodies and the rigid-limit study
# (the sphere), hydroelastic meshes set by parameters (the coin's fan and polar grids), articulated
# trees on prescribed parents (the gripper), an applied force and the in-process studies that emit
# nothing (the push), runs that fail (the conveyor at 1 iteration, below), every kind of run
# directory and table that --from reads. The other four cases' runs are the same `ccb run` of the
# same engine (the rod's at dt = 1e-7 write 0.5 million rows each through a manifest).
# `all` (CCB_CLUSTER_CASES=all) reproduces every case.
set -u
CCB=$(realpath "${1:?usage: cluster_test.sh CCB [parallel|slurm|all]}")
which=${2:-all}
read -r -a cases <<<"${CCB_CLUSTER_CASES:-conveyor sphere box coin gripper push}"
[ "${cases[*]}" = all ] && cases=()
tmp=$(mktemp -d) || exit 2
cores=$(nproc)
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
s="" # this script's Slurm directory, once it starts one
cleanup() {
  if [ -n "$s" ]; then
    # every daemon of this script's Slurm, by its pid file (read now: slurmd writes its own only
    # once it is up, so a list read at start can miss it and leave it running, holding its port)
    # and by its command line, which names this script's directory
    local pids
    pids="$(cat "$s/munge/munged.pid" "$s/slurmctld.pid" "$s/slurmd.pid" 2>/dev/null) $(pgrep -f -- "$s/" 2>/dev/null)"
    if [ -n "${pids// /}" ]; then
      kill $pids 2>/dev/null
      sleep 1
      kill -9 $pids 2>/dev/null
    fi
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# same TREE1 TREE2 NAME: gates.csv and the study tables equal (wall columns left out). The columns
# left out are those ccb diff leaves out (a name containing "wall", any case: study/diff_kinds.c,
# wall_column), so this is also the guard of that naming rule over every study table of the quick
# tier: a time column added under another name differs between the two reproductions and fails.
same() {
  local a=$1 b=$2 name=$3 n=0 f cols
  while IFS= read -r f; do
    n=$((n + 1))
    [ -f "$b/$f" ] || { bad "$name: $f is missing"; return 1; }
    cols=$(head -1 "$a/$f" | tr ',' '\n' | grep -n -i -E 'wall' | cut -d: -f1 | paste -sd, -)
    if [ -n "$cols" ]; then
      cmp -s <(cut -d, --complement -f"$cols" "$a/$f") <(cut -d, --complement -f"$cols" "$b/$f") \
        || { bad "$name: $f differs: $(diff <(cut -d, --complement -f"$cols" "$a/$f") <(cut -d, --complement -f"$cols" "$b/$f") | head -3)"; return 1; }
    else
      cmp -s "$a/$f" "$b/$f" || { bad "$name: $f differs: $(diff "$a/$f" "$b/$f" | head -3)"; return 1; }
    fi
  done < <(cd "$a" && find . -mindepth 2 -maxdepth 3 -name '*.csv' | sort)
  [ "$n" -gt 0 ] || { bad "$name: no table compared"; return 1; }
  ok "$name: the gates and $n tables equal the in-process reproduction"
}

secs() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(secs)" 'BEGIN {printf "%.0f", b - a}'; }

have_parallel=0; have_slurm=0
command -v parallel >/dev/null 2>&1 && have_parallel=1
command -v sbatch >/dev/null 2>&1 && command -v slurmctld >/dev/null 2>&1 \
  && command -v slurmd >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 && have_slurm=1
[ "$which" = slurm ] && have_parallel=0
[ "$which" = parallel ] && have_slurm=0
if [ $have_parallel -eq 0 ] && [ $have_slurm -eq 0 ]; then
  echo "SKIP neither GNU parallel nor Slurm (slurm-wlm, munge) is installed"
  exit 77
fi

t0=$(secs)
"$CCB" reproduce "${cases[@]}" --tier quick --no-figures --out "$tmp/A" >"$tmp/A.log" 2>&1
rcA=$?
tA=$(elapsed "$t0")
[ $rcA -le 1 ] || { bad "the in-process reproduction: exit $rcA: $(tail -3 "$tmp/A.log")"; exit 1; }
echo "time in-process reproduction (quick tier, --jobs 2): ${tA} s"

if [ $have_parallel -eq 1 ]; then
  t0=$(secs)
  "$CCB" reproduce "${cases[@]}" --tier quick --emit-manifest "$tmp/m.txt" --out "$tmp/B" >"$tmp/Bm.log" 2>&1 \
    || bad "reproduce --emit-manifest: $(tail -2 "$tmp/Bm.log")"
  # exit 1 of a line is a run whose solver failed (a result, in its meta.json); parallel counts
  # those as failed jobs, so its status is not the test: --from is
  t1=$(secs)
  parallel --will-cite -j "$cores" --joblog "$tmp/B.joblog" <"$tmp/m.txt" >"$tmp/B.out" 2>&1
  t2=$(secs)
  "$CCB" reproduce "${cases[@]}" --tier quick --no-figures --from "$tmp/B" >"$tmp/B.log" 2>&1
  rcB=$?
  tB=$(elapsed "$t0")
  n=$(wc -l <"$tmp/m.txt")
  nerr=$(awk 'NR > 1 && $7 > 1' "$tmp/B.joblog" | wc -l)
  echo "time GNU parallel (-j $cores, $n runs): ${tB} s = manifest $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}') s + runs $(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.0f", b - a}') s + --from $(elapsed "$t2") s"
  [ "$nerr" -eq 0 ] || bad "GNU parallel: $nerr lines exited with an error (> 1): $(awk 'NR > 1 && $7 > 1' "$tmp/B.joblog" | head -2) $(grep -h '^ccb: ' "$tmp/B.out" | grep -v ' elapsed, ' | head -6) [free space under $tmp: $(df -h --output=avail "$tmp" | tail -1 | tr -d ' ')]"
  [ $rcB -eq $rcA ] && same "$tmp/A" "$tmp/B" "GNU parallel ($n runs)" \
    || { [ $rcB -eq $rcA ] || bad "GNU parallel: --from exit $rcB, in-process $rcA: $(tail -3 "$tmp/B.log")"; }
  rm -rf "$tmp/B" # compared: its 0.5 GB need not sit beside the Slurm tree
fi

if [ $have_slurm -eq 1 ]; then
  # a single-node Slurm of this script's own: its configuration, state and munge socket in tmp
  s="$tmp/slurm"
  mkdir -p "$s/state" "$s/spool" "$s/munge"
  host=$(hostname -s)
  # two free ports (another Slurm, or one a killed run left behind, may hold the first pair)
  port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
  port=""
  for p in 16917 17917 18917 19917 20917; do
    port_free $p && port_free $((p + 1)) && { port=$p; break; }
  done
  if [ -z "$port" ]; then
    echo "SKIP Slurm: no free pair of ports among 16917 ... 20918"
    [ $have_parallel -eq 1 ] && exit $fail
    exit 77
  fi
  cat >"$s/slurm.conf" <<EOF
ClusterName=ccbtest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$s/munge/munge.socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MaxArraySize=100001
MinJobAge=10
NodeName=$host CPUs=$cores State=UNKNOWN
PartitionName=ccb Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$s/slurm.conf"
  started=1
  munged --socket="$s/munge/munge.socket" --pid-file="$s/munge/munged.pid" \
    --log-file="$s/munge/munged.log" --seed-file="$s/munge/seed" --force >/dev/null 2>&1 || started=0
  [ $started -eq 1 ] && slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || started=0
  [ $started -eq 1 ] && slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || started=0
  for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
  if [ $started -eq 0 ] || ! sinfo -h -o %t 2>/dev/null | grep -q idle; then
    echo "SKIP Slurm could not start here (slurmctld: $(tail -1 "$s/slurmctld.log" 2>/dev/null))"
    [ $have_parallel -eq 1 ] && exit $fail
    exit 77
  fi
  t0=$(secs)
  "$CCB" reproduce "${cases[@]}" --tier quick --emit-manifest "$tmp/s.sh" --format slurm --out "$tmp/C" \
    >"$tmp/Cm.log" 2>&1 || bad "reproduce --emit-manifest --format slurm: $(tail -2 "$tmp/Cm.log")"
  n=$(grep -c "^/.* run " "$tmp/s.sh")
  tasks=$((cores * 4))
  t1=$(secs)
  (cd "$tmp" && sbatch --wait --array=0-$((tasks - 1)) --output="$tmp/slurm-%A_%a.out" "$tmp/s.sh") \
    >"$tmp/C.sbatch" 2>&1
  rcS=$?
  t2=$(secs)
  "$CCB" reproduce "${cases[@]}" --tier quick --no-figures --from "$tmp/C" >"$tmp/C.log" 2>&1
  rcC=$?
  tC=$(elapsed "$t0")
  echo "time Slurm job array ($tasks tasks on $cores CPUs, $n runs): ${tC} s = manifest $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}') s + sbatch --wait $(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.0f", b - a}') s + --from $(elapsed "$t2") s"
  # on failure: the failing lines and what ccb said about them (its messages, not its progress),
  # and the free space, since a full disk is the usual cause of an exit 2 on a shared machine
  [ $rcS -eq 0 ] || bad "sbatch --wait: exit $rcS: $(cat "$tmp/C.sbatch") $(grep -h '^ccb: ' "$tmp"/slurm-*.out | grep -v ' elapsed, ' | head -6) [free space under $tmp: $(df -h --output=avail "$tmp" | tail -1 | tr -d ' ')]"
  [ $rcC -eq $rcA ] && same "$tmp/A" "$tmp/C" "Slurm job array ($n runs)" \
    || { [ $rcC -eq $rcA ] || bad "Slurm: --from exit $rcC, in-process $rcA: $(tail -3 "$tmp/C.log")"; }

  # a run that failed on the cluster is recorded as failed, not lost: one study's manifest with
  # a Newton limit too small for it (the conveyor's Similar at 1 iteration fails), through Slurm
  "$CCB" study conveyor fig3 --tier quick --max-iterations 1 --emit-manifest "$tmp/f.sh" \
    --format slurm --out "$tmp/F" >/dev/null 2>&1
  (cd "$tmp" && sbatch --wait --output="$tmp/f-%A_%a.out" "$tmp/f.sh") >/dev/null 2>&1
  "$CCB" study conveyor fig3 --tier quick --max-iterations 1 --no-figures --out "$tmp/Fin" >"$tmp/Fin.log" 2>&1
  rcIn=$?
  "$CCB" study conveyor fig3 --tier quick --max-iterations 1 --no-figures --from "$tmp/F" >"$tmp/F.log" 2>&1
  rcF=$?
  if [ $rcIn -eq 1 ] && [ $rcF -eq 1 ] && grep -q '"status":[[:space:]]*"failed"' "$tmp"/F/conveyor/fig3/*/meta.json \
     && cmp -s <(grep failed "$tmp/Fin/conveyor/fig3/table.csv" | cut -d, -f1-5) <(grep failed "$tmp/F/conveyor/fig3/table.csv" | cut -d, -f1-5); then
    ok "a run that failed on the cluster: recorded as failed, read back as failed (exit 1, as in-process)"
  else
    bad "a failed run on the cluster: in-process exit $rcIn, --from exit $rcF: $(tail -2 "$tmp/F.log")"
  fi
  # a run that never ran: named, exit 2
  victim=$(ls -d "$tmp"/F/conveyor/fig3/*/ | head -1)
  rm -rf "$victim"
  out=$("$CCB" study conveyor fig3 --tier quick --max-iterations 1 --no-figures --from "$tmp/F" --out "$tmp/G" 2>&1)
  rc=$?
  [ $rc -eq 2 ] && grep -q "$(basename "$victim")/meta.json.*was the run executed" <<<"$out" \
    && ok "a run that never ran: exit 2 naming it" || bad "a run that never ran: exit $rc: $out"
fi
exit $fail
