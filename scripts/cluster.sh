#!/usr/bin/env bash
# A single-node Kubernetes control plane on this host, the way hack/local-up-cluster.sh runs one:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kube-proxy (iptables mode),
# every file under DIR. A local test cluster for bunlet nodes; the e2e tests use it through
# test/harness/cluster.ts.
#
#   scripts/cluster.sh up DIR [--nodes N] [--node-kind bunlet|kubelet] [--registry-port P]
#                                      # build or reuse the binaries, start, return once /readyz is ok
#                                      # (with --nodes: once N node hosts are Ready)
#   scripts/cluster.sh node DIR NAME   # a kubeconfig for node NAME (CN=system:node:NAME); last line: its path
#   scripts/cluster.sh load DIR TAR... # image archives (docker-archive/OCI) onto every node host
#   scripts/cluster.sh down DIR        # stop and remove everything `up` started in DIR (the state stays)
#   scripts/cluster.sh env DIR         # the ports, address and binaries `up` chose, as shell variables
#
# --nodes N (default 0: the control plane alone, nodes joined by hand) adds N node hosts, a kind-
# like cluster on one machine: each a network namespace on one bridge with its own node agent
# (--node-kind: dist/bunlet, the default, or the upstream kubelet with a containerd of its own),
# kube-proxy and iptables, routes between nodes, and the machine routing to pods and Services
# (scripts/lib/cluster-nodes.sh). Nodes are named <kind>-1 .. <kind>-N. --registry-port P: the
# nodes may pull over plain http from a registry on the bridge's address, port P (the caller
# starts it; `env` names the address as NODE_GATEWAY).
#
# After `up`: DIR/admin.kubeconfig (O=system:masters), DIR/client-ca.crt (the CA of the client
# certificates, a node's --client-ca-file), DIR/server-ca.crt (the apiserver's CA), logs in
# DIR/logs. The aggregation layer is on (front-proxy CA and client, requestheader flags,
# --enable-aggregator-routing): an APIService may point at a Service whose endpoints are outside
# the cluster, as the tests run metrics-server. `up` on a DIR that was up before reuses its certificates, etcd data and, when free, its
# ports. Two clusters in two DIRs do not clash: ports are chosen free, derived from DIR. kube-proxy
# owns the host's KUBE-* iptables chains, so one cluster at a time runs it: a second cluster's
# kube-proxy waits in the background until the first one's `down`, and `up` says who holds it.
# HorizontalPodAutoscalers are synced every 5 s (the default 15 s would stretch the HPA test).
#
# Environment: SERVICE_CLUSTER_IP_RANGE (10.0.0.0/24; with --nodes 10.96.0.0/16), CLUSTER_CIDR (node
# podCIDRs, 10.90.0.0/16; with --nodes 10.244.0.0/16),
# ADVERTISE_ADDRESS (default: the source address of the default route; never 127.0.0.1),
# BUNLET_K8S_CACHE / BUNLET_DEBS_CACHE (binary caches, see scripts/k8s/build.sh and scripts/debs.sh).
# Nothing is written outside DIR but those caches (and kube-proxy's iptables rules, removed by down).
set -euo pipefail
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
  sed -n '7,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 2 ] || usage
cmd="$1"
if [ "$cmd" = up ]; then mkdir -p "$2"; fi
NODE_COUNT=0 NODE_KIND=bunlet NODE_REGISTRY_PORT=""
[ -d "$2" ] || { echo "cluster.sh: $2 is not a directory (run: $0 up $2)" >&2; exit 1; }
DIR="$(cd "$2" && pwd)"
PKI="$DIR/pki"
RUN="$DIR/run"
LOGS="$DIR/logs"
ENV_FILE="$DIR/cluster.env"
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy)

log() { echo "cluster.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# certificates (ECDSA P-256; CAs for 10 years, leaf certificates for one)

new_key() { [ -f "$1" ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; chmod 600 "$1"; }

new_ca() { # name, CN
  local ca="$1" cn="$2"
  [ -f "$PKI/$ca.crt" ] && openssl x509 -checkend 86400 -noout -in "$PKI/$ca.crt" >/dev/null && return 0
  new_key "$PKI/$ca.key"
  openssl req -x509 -new -key "$PKI/$ca.key" -subj "/CN=$cn" -days 3650 -sha256 -out "$PKI/$ca.crt" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign" 2>/dev/null
}

# name, ca, subject, extendedKeyUsage [, subjectAltName]; kept while valid for another day
new_cert() {
  local name="$1" ca="$2" subj="$3" eku="$4" san="${5:-}" crt="$PKI/$1.crt"
  if [ -z "$san" ] && [ -f "$crt" ] && openssl x509 -checkend 86400 -noout -in "$crt" >/dev/null; then return 0; fi
  new_key "$PKI/$name.key"
  local ext
  ext="$(mktemp "$PKI/.ext.XXXXXX")"
  { echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -z "$san" ] || echo "subjectAltName=$san"
  } >"$ext"
  openssl req -new -key "$PKI/$name.key" -subj "$subj" 2>/dev/null |
    openssl x509 -req -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" -CAcreateserial -days 365 -sha256 \
      -extfile "$ext" -out "$crt" 2>/dev/null
  rm -f "$ext"
}

b64() { base64 -w0 <"$1"; }

# file, user, cert, key
write_kubeconfig() {
  local file="$1" user="$2" cert="$3" key="$4"
  cat >"$file.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: bunlet-local
  cluster:
    server: $SERVER
    certificate-authority-data: $(b64 "$PKI/server-ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(b64 "$cert")
    client-key-data: $(b64 "$key")
contexts:
- name: $user@bunlet-local
  context: {cluster: bunlet-local, user: $user}
current-context: $user@bunlet-local
EOF
  chmod 600 "$file.tmp"
  mv "$file.tmp" "$file"
}

# ---------------------------------------------------------------------------------------------
# ports and addresses

listening_ports() { ss -Htln | awk '{ n = split($4, a, ":"); print a[n] }' | sort -un; }

# Seven ports in a row, all free, starting from a base derived from DIR (two DIRs, two bases);
# the ones `up` used last time if they are all still free.
choose_ports() {
  local used base i p ok
  used=" $(listening_ports | tr '\n' ' ') "
  if [ -n "${ETCD_PORT:-}" ]; then
    ok=1
    for p in "$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$PROXY_HEALTHZ_PORT" "$PROXY_METRICS_PORT"; do
      [[ "$used" == *" $p "* ]] && ok=0
    done
    [ "$ok" = 1 ] && return 0
  fi
  base=$((20000 + $(printf '%s' "$DIR" | cksum | cut -d' ' -f1) % 1400 * 7))
  for ((i = 0; i < 1400; i++)); do
    ok=1
    for ((p = base; p < base + 7; p++)); do [[ "$used" == *" $p "* ]] && { ok=0; break; }; done
    if [ "$ok" = 1 ]; then
      ETCD_PORT=$base ETCD_PEER_PORT=$((base + 1)) APISERVER_PORT=$((base + 2)) KCM_PORT=$((base + 3))
      SCHEDULER_PORT=$((base + 4)) PROXY_HEALTHZ_PORT=$((base + 5)) PROXY_METRICS_PORT=$((base + 6))
      return 0
    fi
    base=$((20000 + (base - 20000 + 7) % 9800))
  done
  die "no seven free ports in a row in 20000-29799"
}

# The apiserver advertises this address in the kubernetes Service's endpoints, which must not be
# loopback; it is the source address of the default route unless ADVERTISE_ADDRESS says otherwise.
host_address() {
  local ip="${ADVERTISE_ADDRESS:-}"
  [ -n "$ip" ] || ip="$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1)"
  [ -n "$ip" ] || ip="$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }')"
  [ -n "$ip" ] || die "no non-loopback IPv4 address for the apiserver to advertise; set ADVERTISE_ADDRESS"
  [[ "$ip" != 127.* ]] || die "ADVERTISE_ADDRESS must not be loopback (the kubernetes Service's endpoints reject it), got $ip"
  echo "$ip"
}

nth_service_ip() { # 10.0.0.0/24 10 -> 10.0.0.10 (kubeadm's cluster DNS address)
  local net="${1%/*}"
  echo "${net%.*}.$((${net##*.} + $2))"
}
first_service_ip() { nth_service_ip "$1" 1; }

save_env() {
  cat >"$ENV_FILE.tmp" <<EOF
# Written by scripts/cluster.sh up; read by cluster.sh node/down and test/harness/cluster.ts.
K8S_BIN=$K8S_BIN
ETCD_BIN=$ETCD_BIN
API_ADDRESS=$IP
SERVER=$SERVER
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
PROXY_HEALTHZ_PORT=$PROXY_HEALTHZ_PORT
PROXY_METRICS_PORT=$PROXY_METRICS_PORT
SERVICE_CLUSTER_IP_RANGE=$SERVICE_CLUSTER_IP_RANGE
CLUSTER_CIDR=$CLUSTER_CIDR
KUBERNETES_SERVICE_IP=$(first_service_ip "$SERVICE_CLUSTER_IP_RANGE")
EOF
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

load_env() {
  [ -f "$ENV_FILE" ] || die "$DIR has no cluster.env; run: $0 up $DIR"
  # shellcheck disable=SC1090
  source "$ENV_FILE"
}

# ---------------------------------------------------------------------------------------------
# processes: pid_of, start, wait_for, pids_naming_dir, stop_pids

# shellcheck source=lib/cluster-processes.sh
source "$scripts/lib/cluster-processes.sh"
# shellcheck source=lib/cluster-nodes.sh
source "$scripts/lib/cluster-nodes.sh"
# shellcheck source=lib/cluster-dns.sh
source "$scripts/lib/cluster-dns.sh"

kubectl() { "$K8S_BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }

https_ok() { curl -fsS --max-time 2 --cacert "$PKI/server-ca.crt" "$1" | grep -qx ok; }
local_https_ok() { curl -fsSk --max-time 2 "$1" | grep -qx ok; }

# ---------------------------------------------------------------------------------------------

cmd_up() {
  mkdir -p "$PKI" "$RUN" "$LOGS" "$DIR/etcd" "$DIR/nodes"
  chmod 700 "$PKI" "$DIR/etcd"
  for c in "${COMPONENTS[@]}" $(cd "$RUN" && ls -- node-*.pid 2>/dev/null | sed 's/\.pid$//'); do
    if pid="$(pid_of "$c")"; then die "$c is already running in $DIR (pid $pid); run: $0 down $DIR"; fi
  done
  # From here on a failed up stops what it started, so nothing is left running for a `down` to find.
  trap 'rc=$?; if [ "$rc" -ne 0 ]; then log "up failed; stopping what it started"; cmd_down; fi' EXIT
  command -v openssl >/dev/null || die "openssl is missing (scripts/install-deps.sh installs it)"
  command -v iptables >/dev/null || die "iptables is missing (scripts/install-deps.sh installs it)"

  log "binaries: building or reusing the upstream components (scripts/k8s/build.sh) and etcd (scripts/debs.sh)"
  K8S_BIN="$(bash "$scripts/k8s/build.sh" | tail -1)"
  ETCD_BIN="$(bash "$scripts/debs.sh" trixie etcd-server | tail -1)/usr/bin/etcd"
  [ -x "$K8S_BIN/k8s" ] && [ -x "$ETCD_BIN" ] || die "binaries missing after the build: $K8S_BIN/k8s $ETCD_BIN"

  [ ! -f "$ENV_FILE" ] || source "$ENV_FILE"
  if ((NODE_COUNT > 0)); then
    # kubeadm's Service range and kind's pod range: the machine routes both to the node hosts, so
    # they must not be the ranges of a control plane whose nodes share the machine's network.
    SERVICE_CLUSTER_IP_RANGE="${SERVICE_CLUSTER_IP_RANGE:-10.96.0.0/16}"
    CLUSTER_CIDR="${CLUSTER_CIDR:-10.244.0.0/16}"
  fi
  SERVICE_CLUSTER_IP_RANGE="${SERVICE_CLUSTER_IP_RANGE:-10.0.0.0/24}"
  CLUSTER_CIDR="${CLUSTER_CIDR:-10.90.0.0/16}"
  IP="$(host_address)"
  choose_ports
  SERVER="https://$IP:$APISERVER_PORT"
  save_env

  new_ca server-ca kubernetes-server-ca
  new_ca client-ca kubernetes-client-ca
  # The aggregation layer's own CA: the apiserver proxies to extension apiservers (metrics-server)
  # with a client certificate of it, which they trust through --requestheader-client-ca-file.
  new_ca front-proxy-ca kubernetes-front-proxy-ca
  cp "$PKI/server-ca.crt" "$DIR/server-ca.crt"
  cp "$PKI/client-ca.crt" "$DIR/client-ca.crt"
  local svc_ip
  svc_ip="$(first_service_ip "$SERVICE_CLUSTER_IP_RANGE")"
  # The serving certificate follows the address, so it is made anew at every up.
  new_cert apiserver server-ca "/CN=kube-apiserver" serverAuth \
    "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$IP,IP:$svc_ip"
  new_cert admin client-ca "/O=system:masters/CN=admin" clientAuth
  new_cert controller-manager client-ca "/CN=system:kube-controller-manager" clientAuth
  new_cert scheduler client-ca "/CN=system:kube-scheduler" clientAuth
  new_cert kube-proxy client-ca "/CN=system:kube-proxy" clientAuth
  new_cert apiserver-kubelet-client client-ca "/CN=kube-apiserver" clientAuth
  new_cert front-proxy-client front-proxy-ca "/CN=front-proxy-client" clientAuth
  new_key "$PKI/sa.key"
  openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  write_kubeconfig "$DIR/admin.kubeconfig" admin "$PKI/admin.crt" "$PKI/admin.key"
  write_kubeconfig "$DIR/controller-manager.kubeconfig" system:kube-controller-manager "$PKI/controller-manager.crt" "$PKI/controller-manager.key"
  write_kubeconfig "$DIR/scheduler.kubeconfig" system:kube-scheduler "$PKI/scheduler.crt" "$PKI/scheduler.key"
  write_kubeconfig "$DIR/kube-proxy.kubeconfig" system:kube-proxy "$PKI/kube-proxy.crt" "$PKI/kube-proxy.key"

  log "starting etcd on 127.0.0.1:$ETCD_PORT"
  start etcd "$ETCD_BIN" --name=default --data-dir="$DIR/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="default=http://127.0.0.1:$ETCD_PEER_PORT" --log-level=warn
  wait_for "etcd /health" 30 etcd curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health"

  # The nodes' requests, in the order the apiserver received them (metadata only): tests read
  # LOGS/audit-nodes.log to see what a node sends first after an outage.
  cat >"$DIR/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  userGroups: ["system:nodes"]
- level: None
EOF

  log "starting kube-apiserver on $SERVER"
  start kube-apiserver "$K8S_BIN/kube-apiserver" \
    --audit-policy-file="$DIR/audit-policy.yaml" --audit-log-path="$LOGS/audit-nodes.log" --audit-log-maxbackup=1 --audit-log-maxsize=100 \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --secure-port="$APISERVER_PORT" --advertise-address="$IP" --cert-dir="$PKI" \
    --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --client-ca-file="$DIR/client-ca.crt" \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc \
    --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultTolerationSeconds,Priority,ResourceQuota,NodeRestriction \
    --service-cluster-ip-range="$SERVICE_CLUSTER_IP_RANGE" --allow-privileged=true \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname \
    --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$PKI/front-proxy-client.crt" --proxy-client-key-file="$PKI/front-proxy-client.key" \
    --enable-aggregator-routing=true \
    --profiling=false --v=1
  wait_for "kube-apiserver /readyz" 120 kube-apiserver https_ok "$SERVER/readyz"
  # The apiserver's client certificate (CN=kube-apiserver) may use the kubelet API: logs, exec, port-forward.
  kubectl create clusterrolebinding kube-apiserver-kubelet-admin --clusterrole=system:kubelet-api-admin \
    --user=kube-apiserver --dry-run=client -o yaml | kubectl apply -f - >/dev/null

  log "starting kube-controller-manager and kube-scheduler"
  local kcm="$DIR/controller-manager.kubeconfig" sched="$DIR/scheduler.kubeconfig"
  start kube-controller-manager "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$kcm" --authentication-kubeconfig="$kcm" --authorization-kubeconfig="$kcm" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --cert-dir="$PKI/controller-manager" \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/server-ca.crt" \
    --cluster-signing-cert-file="$DIR/client-ca.crt" --cluster-signing-key-file="$PKI/client-ca.key" \
    --use-service-account-credentials=true --service-cluster-ip-range="$SERVICE_CLUSTER_IP_RANGE" \
    --allocate-node-cidrs=true --cluster-cidr="$CLUSTER_CIDR" --node-cidr-mask-size=24 \
    --horizontal-pod-autoscaler-sync-period=5s \
    --leader-elect=false --profiling=false --v=1
  cat >"$DIR/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $sched
leaderElection:
  leaderElect: false
EOF
  start kube-scheduler "$K8S_BIN/kube-scheduler" --config="$DIR/scheduler.yaml" \
    --authentication-kubeconfig="$sched" --authorization-kubeconfig="$sched" \
    --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --cert-dir="$PKI/scheduler" --v=1
  wait_for "kube-controller-manager /healthz" 60 kube-controller-manager local_https_ok "https://127.0.0.1:$KCM_PORT/healthz"
  wait_for "kube-scheduler /healthz" 60 kube-scheduler local_https_ok "https://127.0.0.1:$SCHEDULER_PORT/healthz"
  # The ServiceAccount admission plugin refuses every pod of a namespace until the controller-manager
  # has made its `default` ServiceAccount: wait for the default namespace's, so pods can be created.
  wait_for "the default ServiceAccount in namespace default" 60 kube-controller-manager kubectl -n default get serviceaccount default

  if ((NODE_COUNT == 0)); then
    start_kube_proxy
  else
    CLUSTER_DNS_IP="$(nth_service_ip "$SERVICE_CLUSTER_IP_RANGE" 10)" CLUSTER_DOMAIN=cluster.local
    log "CoreDNS: building or reusing its binary and image (scripts/k8s/build-coredns.sh)"
    COREDNS_TAR="$(bash "$scripts/k8s/build-coredns.sh" | tail -1)/coredns.tar"
    [ -f "$COREDNS_TAR" ] || die "no CoreDNS image at $COREDNS_TAR after scripts/k8s/build-coredns.sh"
    nodes_up
    # The cluster DNS as kubeadm runs it: the coredns Deployment behind Service kube-dns, at the
    # Service range's 10th address, every node's --cluster-dns (scripts/lib/cluster-dns.sh).
    dns_up kubectl "$CLUSTER_DNS_IP" "$CLUSTER_DOMAIN" || die "cluster DNS: applying the CoreDNS objects failed"
    dns_wait kubectl "${DNS_READY_TIMEOUT:-180}" || die "cluster DNS: CoreDNS not Available (above)"
  fi
  if ((NODE_COUNT == 0)); then
    log "up: $SERVER (kubectl --kubeconfig $DIR/admin.kubeconfig), logs in $LOGS; kube-proxy writes the Service rules within about 30 s (http://127.0.0.1:$PROXY_HEALTHZ_PORT/livez)"
  else
    log "up: $SERVER with $NODE_COUNT $NODE_KIND nodes on $NODE_BRIDGE and cluster DNS at $CLUSTER_DNS_IP (export KUBECONFIG=$DIR/admin.kubeconfig), logs in $LOGS"
  fi
}

# kube-proxy rewrites the host's KUBE-* chains as a whole, so two on one host would undo each
# other. A lock in the binary cache, held by the running kube-proxy (it inherits the descriptor),
# makes them take turns; the lock file names the DIR that holds it. While another cluster holds
# it, our kube-proxy waits for it in the background (as a `bash -c` naming DIR, so `down` finds it).
proxy_lock() { echo "$(dirname "$K8S_BIN")/kube-proxy.lock"; }

start_kube_proxy() {
  cat >"$DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $DIR/kube-proxy.kubeconfig
mode: iptables
bindAddress: $IP
clusterCIDR: $CLUSTER_CIDR
healthzBindAddress: 127.0.0.1:$PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
# Leave the host's sysctls alone: no conntrack table or timeout changes, no route_localnet.
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
iptables:
  localhostNodePorts: false
nodePortAddresses: [primary]
EOF
  local lock holder
  lock="$(proxy_lock)"
  touch "$lock"
  if ! flock -n "$lock" true; then
    holder="$(cat "$lock")"
    if [ -n "$holder" ] && [ ! -d "$holder" ]; then
      log "kube-proxy: the host's Service rules belong to the processes of $holder, a cluster whose dir was removed while it ran; ours starts once they are gone (pgrep -af $holder/)"
    else
      log "kube-proxy: the host's Service rules belong to the cluster in ${holder:-?}; ours starts when that one is down ($0 down ${holder:-DIR})"
    fi
  else
    log "starting kube-proxy (iptables mode)"
  fi
  # shellcheck disable=SC2016
  start kube-proxy bash -c 'exec 9>>"$1" && flock 9 && printf "%s\n" "$2" >"$1" && exec "$3" --config="$4" --v=1' \
    kube-proxy "$lock" "$DIR" "$K8S_BIN/kube-proxy" "$DIR/kube-proxy.yaml"
  # It waits up to 30 s for a Node named after this host before it writes any rule (there may be
  # none: bunlet nodes have names of their own), so `up` does not wait for it; /livez answers 200
  # once the rules are written.
  sleep 0.5
  pid_of kube-proxy >/dev/null || die "kube-proxy exited at once; the end of $LOGS/kube-proxy.log:
$(tail -n 20 "$LOGS/kube-proxy.log")"
}

cmd_down() {
  local c pid pids=()
  [ ! -f "$ENV_FILE" ] || source "$ENV_FILE"
  # The node hosts first, while the apiserver still answers their last requests.
  nodes_down
  # Everything but etcd at once, then etcd, which the others write to until they are gone.
  for c in "${COMPONENTS[@]}"; do
    [ "$c" != etcd ] || continue
    if pid="$(pid_of "$c")"; then pids+=("$pid"); log "stopping $c (pid $pid)"; fi
  done
  stop_pids "${pids[@]}"
  if pid="$(pid_of etcd)"; then log "stopping etcd (pid $pid)"; stop_pids "$pid"; fi
  for c in "${COMPONENTS[@]}"; do rm -f "$RUN/$c.pid"; done
  # Anything else still naming DIR (a component whose pid file was lost, a node using it).
  for pid in $(pids_naming_dir); do
    log "stopping leftover pid $pid: $( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)"
    stop_pids "$pid"
  done
  # Our Service rules stay in iptables until the next kube-proxy replaces them, unless we still
  # hold the lock (nobody took over): then remove them.
  if [ -n "${K8S_BIN:-}" ] && [ -x "$K8S_BIN/kube-proxy" ]; then
    local lock
    lock="$(proxy_lock)"
    exec 9>>"$lock"
    if flock -n 9 && [ "$(cat "$lock")" = "$DIR" ]; then
      "$K8S_BIN/kube-proxy" --cleanup --v=0 >>"$LOGS/kube-proxy.log" 2>&1 || log "kube-proxy --cleanup failed; see $LOGS/kube-proxy.log"
      # --cleanup keeps KUBE-FIREWALL (the kubelet may share it); an empty one is ours to remove.
      local ipt
      for ipt in iptables ip6tables; do
        if "$ipt" -S KUBE-FIREWALL 2>/dev/null | grep -q '^-A'; then continue; fi
        while "$ipt" -D INPUT -j KUBE-FIREWALL 2>/dev/null; do :; done
        while "$ipt" -D OUTPUT -j KUBE-FIREWALL 2>/dev/null; do :; done
        "$ipt" -X KUBE-FIREWALL 2>/dev/null || true
      done
      : >"$lock"
    fi
    exec 9>&-
  fi
  log "down: nothing of $DIR is running"
}

cmd_node() {
  local name="${1:-}"
  [[ "$name" =~ ^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$ ]] || die "node name must be a lower-case DNS subdomain, got '$name'"
  load_env
  [ -f "$PKI/client-ca.key" ] || die "$DIR has no client CA; run: $0 up $DIR"
  local dir="$DIR/nodes/$name"
  mkdir -p "$dir"
  new_cert "../nodes/$name/node" client-ca "/O=system:nodes/CN=system:node:$name" clientAuth
  write_kubeconfig "$dir/kubeconfig" "system:node:$name" "$dir/node.crt" "$dir/node.key"
  echo "$dir/kubeconfig"
}

parse_up_flags() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) [[ "${2:-}" =~ ^[0-9]+$ ]] || die "--nodes needs a number, got '${2:-}'"; NODE_COUNT="$2"; shift 2 ;;
      --node-kind) NODE_KIND="${2:-}"; shift 2 ;;
      --registry-port) [[ "${2:-}" =~ ^[0-9]+$ ]] || die "--registry-port needs a port, got '${2:-}'"; NODE_REGISTRY_PORT="$2"; shift 2 ;;
      *) log "unknown flag for up: $1"; usage ;;
    esac
  done
}

case "$cmd" in
  up) shift 2; parse_up_flags "$@"; cmd_up ;;
  load) [ $# -ge 3 ] || usage; shift 2; nodes_load "$@" ;;
  down) [ $# -eq 2 ] || usage; cmd_down ;;
  node) [ $# -eq 3 ] || usage; cmd_node "$3" ;;
  env) [ $# -eq 2 ] || usage; load_env; cat "$ENV_FILE"; [ ! -f "$NODES_ENV" ] || cat "$NODES_ENV" ;;
  *) usage ;;
esac
