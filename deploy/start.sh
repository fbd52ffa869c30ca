#!/usr/bin/env bash
# Serve AttnViz with one Streamlit process per core behind HAProxy (session affinity, websockets).
# Usage: deploy/start.sh [--replicas N] [--port P] [--base-port B]
#   N: replicas (default: the number of cores); P: public port (default 8501);
#   replica i listens on 127.0.0.1:B+i (default B = 8601). Runs in the foreground; Ctrl-C or
#   SIGTERM stops HAProxy and every replica. Logs: the directory printed at start.
set -euo pipefail
cd "$(dirname "$0")/.."

REPLICAS=$(nproc)
PORT=8501
BASE_PORT=8601
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) REPLICAS="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --base-port) BASE_PORT="$2"; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
if ! command -v haproxy >/dev/null 2>&1; then
  echo "haproxy is not installed: apt-get install -y haproxy" >&2
  exit 1
fi
PYTHON="${PYTHON:-python}"
RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-deploy.XXXXXX")
PIDS=()

stop_all() {
  trap - EXIT INT TERM
  [ ${#PIDS[@]} -gt 0 ] && kill -TERM "${PIDS[@]}" 2>/dev/null || true
  for _ in $(seq 1 30); do  # up to 15 s, then kill what is left
    alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.5
  done
  [ ${#PIDS[@]} -gt 0 ] && kill -KILL "${PIDS[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  echo "stopped HAProxy and ${REPLICAS} replicas"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap stop_all EXIT

wait_healthy() {  # url, name, pid: poll until 200, fail if the process exits or after 180 s
  for _ in $(seq 1 360); do
    if ! kill -0 "$3" 2>/dev/null; then echo "$2 exited; see $RUN_DIR" >&2; return 1; fi
    if "$PYTHON" -c "import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=2)" \
      "$1/_stcore/health" 2>/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "$2 not healthy after 180 s; see $RUN_DIR" >&2
  return 1
}

# training workers per replica: the cores shared among the replicas (at least 1 each), unless
# set; with ATTNVIZ_RAY_ADDRESS the cluster's size counts instead (attnviz/training/jobs.py)
if [ -z "${ATTNVIZ_TRAINING_WORKERS:-}" ] && [ -z "${ATTNVIZ_RAY_ADDRESS:-}" ]; then
  per=$(( $(nproc) / REPLICAS ))
  export ATTNVIZ_TRAINING_WORKERS=$(( per > 0 ? per : 1 ))
fi
SERVERS=""
start_replica() {  # i (from 0): replica i+1 on BASE_PORT + i, appending to its log
  "$PYTHON" -m attnviz.ui.serve --server.port "$((BASE_PORT + $1))" --server.address 127.0.0.1 \
    --server.headless true >>"$RUN_DIR/replica-$(($1 + 1)).log" 2>&1 &
}
for i in $(seq 0 $((REPLICAS - 1))); do
  port=$((BASE_PORT + i))
  start_replica "$i"
  PIDS+=($!)
  SERVERS+="    server r$((i + 1)) 127.0.0.1:${port} check cookie r$((i + 1))"$'\n'
done
for i in $(seq 0 $((REPLICAS - 1))); do
  wait_healthy "http://127.0.0.1:$((BASE_PORT + i))" "replica $((i + 1))" "${PIDS[$i]}"
  # one session opens the home page: the replica's first run starts loading the pretrained model
  # in the background (attnviz/ui/warm_up.py), before the first student arrives
  "$PYTHON" -c "import asyncio, sys; from benchmarks.load import warm_up; \
asyncio.run(warm_up(sys.argv[1], ['home'], 1))" "http://127.0.0.1:$((BASE_PORT + i))" \
    >>"$RUN_DIR/replica-$((i + 1)).log" 2>&1 || echo "replica $((i + 1)): warm-up failed" >&2
done

CONFIG="$RUN_DIR/haproxy.cfg"
while IFS= read -r line; do
  case "$line" in
    @SERVERS@) printf '%s' "$SERVERS" ;;
    *) printf '%s\n' "${line//@PORT@/$PORT}" ;;
  esac
done <deploy/haproxy.cfg.template >"$CONFIG"
haproxy -c -q -f "$CONFIG"
haproxy -db -f "$CONFIG" >"$RUN_DIR/haproxy.log" 2>&1 &
PIDS+=($!)
wait_healthy "http://127.0.0.1:${PORT}" "HAProxy" "${PIDS[-1]}"
echo "AttnViz on http://localhost:${PORT} (${REPLICAS} replicas on ports ${BASE_PORT}-$((BASE_PORT + REPLICAS - 1)), training workers per replica: ${ATTNVIZ_TRAINING_WORKERS:-the cluster}; logs in ${RUN_DIR})"

# A replica that exits (a crash, a kill) is started again on its port: HAProxy sends its
# students to the other replicas meanwhile (option redispatch), and back once it is healthy.
# HAProxy exiting stops everything.
set +e
while true; do
  wait -n -p gone "${PIDS[@]}"
  status=$?
  for i in $(seq 0 $((REPLICAS - 1))); do
    if [ "${PIDS[$i]}" = "$gone" ]; then
      echo "replica $((i + 1)) exited with status $status; starting it again" >&2
      start_replica "$i"
      PIDS[$i]=$!
      continue 2
    fi
  done
  echo "HAProxy exited with status $status; stopping the replicas" >&2
  exit "$status"
done
