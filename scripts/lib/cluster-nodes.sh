# scripts/cluster.sh's node hosts (`up DIR --nodes N`), sourced by it. Each node is a host of its
# own as kind's are containers: a network namespace on one bridge of this machine, with its own
# address, node agent (dist/bunlet with its embedded containerd, or the upstream kubelet with a
# containerd of its own), kube-proxy and iptables; the agents' pod and QoS cgroups under a cgroup
# root per node, their files under DIR/nodes/<name>. The machine is the nodes' default gateway and
# keeps a route to each node's pod CIDR and to the Service range, so the apiserver reaches pods
# (webhooks, aggregated apiservers, the proxy subresources) and Services.
#
# What it makes, and `nodes_down` removes: the bridge (the machine's routes through it go with
# it), the namespaces (their links, routes and iptables rules go with them), the cgroup roots in
# every hierarchy, the mounts under DIR, and every process in a namespace or cgroup root of ours
# or naming DIR. Nothing else on the machine is touched: not its interfaces, default route,
# sysctls or iptables. Uses DIR, RUN, LOGS, K8S_BIN, log, die, start, pid_of, stop_pids and
# kubectl from cluster.sh.

NODES_ENV="$DIR/nodes.env"
# The machine's routes to the nodes' pod CIDRs and the Service range carry this protocol number
# (bunlet's own host-gw routes, inside the namespaces, carry 77).
NODE_ROUTE_PROTO=87

nodes_load_env() {
  NODE_COUNT=0
  # shellcheck disable=SC1090
  [ ! -f "$NODES_ENV" ] || source "$NODES_ENV"
}

# Names derived from DIR, so two clusters on one machine do not clash and `down` finds its own.
nodes_choose_network() {
  local h hex third used
  h="$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)"
  hex="$(printf '%06x' $((h % 16777216)))"
  NODE_BRIDGE="bk$hex"
  NODE_NS_PREFIX="bunlet-cluster-$hex"
  NODE_CGROUP_PREFIX="/bunlet-cluster-$hex"
  # A free 10.87.X.0/24 for the nodes' addresses: not an address or route of this machine.
  used="$(ip -4 -o addr show; ip -4 route show table all)"
  third=$((h % 200 + 20))
  local tries
  for ((tries = 0; tries < 200; tries++)); do
    if ! grep -q "10\.87\.$third\." <<<"$used"; then break; fi
    third=$(((third - 19) % 200 + 20))
  done
  ((tries < 200)) || die "no free 10.87.X.0/24 for the nodes' bridge"
  NODE_NET_PREFIX="10.87.$third"
  NODE_GATEWAY="$NODE_NET_PREFIX.1"
}

nodes_save_env() {
  cat >"$NODES_ENV.tmp" <<EOF
# Written by scripts/cluster.sh up --nodes; read by its down, load and env.
NODE_COUNT=$NODE_COUNT
NODE_KIND=$NODE_KIND
NODE_BRIDGE=$NODE_BRIDGE
NODE_NS_PREFIX=$NODE_NS_PREFIX
NODE_CGROUP_PREFIX=$NODE_CGROUP_PREFIX
NODE_NET_PREFIX=$NODE_NET_PREFIX
NODE_GATEWAY=$NODE_GATEWAY
NODE_REGISTRY=${NODE_REGISTRY:-}
CLUSTER_DNS_IP=$CLUSTER_DNS_IP
CLUSTER_DOMAIN=$CLUSTER_DOMAIN
EOF
  mv "$NODES_ENV.tmp" "$NODES_ENV"
}

node_name() { echo "$NODE_KIND-$1"; }
node_ns() { echo "$NODE_NS_PREFIX-$1"; }
node_ip() { echo "$NODE_NET_PREFIX.$(($1 + 1))"; }
node_dir() { echo "$DIR/nodes/$(node_name "$1")"; }
node_cgroup() { echo "$NODE_CGROUP_PREFIX-$1"; }
in_node() { local i="$1"; shift; ip netns exec "$(node_ns "$i")" "$@"; }
# Long-lived processes enter the network namespace only: their mounts are the machine's, as on a
# real host (`ip netns exec` would give each a mount namespace of its own).
enter_node() { echo "nsenter --net=/run/netns/$(node_ns "$1")"; }

cgroup_mounts() { awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup" || $(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo; }

# The node's containerd socket: the kubelet's own containerd, or bunlet's embedded one (its
# rendered config names it; the path moves under /run when DIR is too long for a unix socket).
node_socket() {
  local i="$1" d
  d="$(node_dir "$i")"
  if [ "$NODE_KIND" = kubelet ]; then echo "$d/containerd/containerd.sock"; return; fi
  sed -n 's/^ *address = "\(.*\)"$/\1/p' "$d/root/containerd/config.toml" 2>/dev/null | head -1
}

# ---------------------------------------------------------------------------------------------
# up

nodes_make_network() {
  log "nodes: bridge $NODE_BRIDGE ($NODE_GATEWAY/24), $NODE_COUNT network namespaces"
  ip link add "$NODE_BRIDGE" type bridge
  ip addr add "$NODE_GATEWAY/24" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
  local i ns veth
  for ((i = 1; i <= NODE_COUNT; i++)); do
    ns="$(node_ns "$i")" veth="${NODE_BRIDGE}h$i"
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$NODE_BRIDGE" up
    in_node "$i" ip link set lo up
    in_node "$i" ip addr add "$(node_ip "$i")/24" dev eth0
    in_node "$i" ip link set eth0 up
    in_node "$i" ip route add default via "$NODE_GATEWAY"
    in_node "$i" sysctl -qw net.ipv4.ip_forward=1
    # Bridged pod-to-pod traffic through the node's iptables (kube-proxy's hairpin and Service
    # rules), per namespace since Linux 5.3.
    in_node "$i" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
  done
}

nodes_make_cgroups() {
  local i m cg f
  for ((i = 1; i <= NODE_COUNT; i++)); do
    cg="$(node_cgroup "$i")"
    for m in $(cgroup_mounts); do
      mkdir -p "$m$cg"
      for f in cpuset.cpus cpuset.mems; do # empty in a new cpuset cgroup: no task could join it
        if [ -f "$m$cg/$f" ] && [ -z "$(cat "$m$cg/$f")" ]; then cat "$m/$f" >"$m$cg/$f"; fi
      done
    done
  done
}

# The images every node has without a registry: bunlet's pause and busybox, and CoreDNS's.
nodes_image_archives() {
  local images
  images="$(cd "$scripts/.." && pwd)/.tmp/images"
  bash "$scripts/build-images.sh" "$images" >/dev/null || die "scripts/build-images.sh failed"
  echo "$images/pause.tar" "$images/busybox.tar"
  [ -z "${COREDNS_TAR:-}" ] || echo "$COREDNS_TAR"
}

# The containerd config template bunlet's embedded containerd fills in: a second runc handler
# for RuntimeClass tests, and the plain-http registry the nodes may pull from.
bunlet_containerd_template() {
  local cri='plugins."io.containerd.grpc.v1.cri"'
  echo '{{ template "base" . }}'
  printf '\n[%s.containerd.runtimes.test-handler]\n  runtime_type = "io.containerd.runc.v2"\n' "$cri"
  printf '\n[%s.containerd.runtimes.test-handler.options]\n  SystemdCgroup = false\n' "$cri"
  if [ -n "${NODE_REGISTRY:-}" ]; then
    printf '\n[%s.registry.mirrors."%s"]\n  endpoint = ["http://%s"]\n' "$cri" "$NODE_REGISTRY" "$NODE_REGISTRY"
  fi
}

start_bunlet_node() {
  local i="$1" name d kcfg bunlet
  name="$(node_name "$i")" d="$(node_dir "$i")"
  bunlet="${BUNLET:-$(cd "$scripts/.." && pwd)/dist/bunlet}"
  [ -x "$bunlet" ] || die "no $bunlet; run: npm run build (or set BUNLET)"
  kcfg="$(cmd_node "$name" | tail -1)"
  mkdir -p "$d/root/images" "$d/root/containerd" "$d/logs"
  # shellcheck disable=SC2046
  cp $(nodes_image_archives) "$d/root/images/"
  bunlet_containerd_template >"$d/root/containerd/config.toml.tmpl"
  log "starting node $name ($(node_ip "$i")): dist/bunlet with its embedded containerd"
  # shellcheck disable=SC2046
  start "node-$name" $(enter_node "$i") "$bunlet" --kubeconfig "$kcfg" --hostname-override "$name" \
    --node-ip "$(node_ip "$i")" --root-dir "$d/root" --pod-logs-dir "$d/logs/pods" \
    --container-logs-dir "$d/logs/containers" --client-ca-file "$DIR/client-ca.crt" \
    --cluster-dns "$CLUSTER_DNS_IP" --cluster-domain "$CLUSTER_DOMAIN" --cgroup-root "$(node_cgroup "$i")" \
    --read-only-port 0 --node-labels "bunlet.dev/node-host=$(node_ns "$i")"
}

# A kind node's containerd: the CNI config is rendered from the kubelet's pod CIDR
# (UpdateRuntimeConfig) through conf_template, as kind's nodes did before kindnet.
kubelet_containerd_config() {
  local d="$1" cri='plugins."io.containerd.grpc.v1.cri"'
  cat <<EOF
version = 2
root = "$d/containerd/root"
state = "$d/containerd/state"

[grpc]
  address = "$d/containerd/containerd.sock"

[plugins."io.containerd.internal.v1.opt"]
  path = "$d/containerd/opt"

[$cri]
  sandbox_image = "registry.k8s.io/pause:3.10.2"
  netns_mounts_under_state_dir = true

[$cri.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[$cri.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[$cri.containerd.runtimes.test-handler]
  runtime_type = "io.containerd.runc.v2"

[$cri.cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "$d/containerd/net.d"
  conf_template = "$d/containerd/cni.template"
  max_conf_num = 1
EOF
  if [ -n "${NODE_REGISTRY:-}" ]; then
    printf '\n[%s.registry.mirrors."%s"]\n  endpoint = ["http://%s"]\n' "$cri" "$NODE_REGISTRY" "$NODE_REGISTRY"
  fi
}

kubelet_cni_template() {
  local d="$1"
  cat <<EOF
{
  "cniVersion": "0.4.0",
  "name": "kubelet-node",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "hairpinMode": true, "forceAddress": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "{{.PodCIDR}}"}]], "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "$d/containerd/ipam"}
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

start_kubelet_node() {
  local i="$1" name d kcfg sock archive
  name="$(node_name "$i")" d="$(node_dir "$i")"
  [ -x "$K8S_BIN/kubelet" ] || bash "$scripts/k8s/build.sh" kubelet >&2 || die "building the upstream kubelet failed"
  kcfg="$(cmd_node "$name" | tail -1)"
  mkdir -p "$d/containerd/net.d" "$d/logs" "$d/kubelet"
  kubelet_containerd_config "$d" >"$d/containerd/config.toml"
  kubelet_cni_template "$d" >"$d/containerd/cni.template"
  sock="$d/containerd/containerd.sock"
  log "starting node $name ($(node_ip "$i")): the upstream kubelet and a containerd of its own"
  # shellcheck disable=SC2046
  start "containerd-$name" $(enter_node "$i") containerd --config "$d/containerd/config.toml"
  wait_for "containerd of $name" 60 "containerd-$name" ctr --address "$sock" version
  for archive in $(nodes_image_archives); do
    ctr --address "$sock" -n k8s.io images import "$archive" >/dev/null || die "importing $archive into $name failed"
  done
  cat >"$d/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$sock
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
clusterDNS: [$CLUSTER_DNS_IP]
clusterDomain: $CLUSTER_DOMAIN
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $DIR/client-ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupRoot: $(node_cgroup "$i")
failSwapOn: false
failCgroupV1: false
podLogsDir: $d/logs/pods
EOF
  # shellcheck disable=SC2046
  start "node-$name" $(enter_node "$i") "$K8S_BIN/kubelet" --config "$d/kubelet/config.yaml" --kubeconfig "$kcfg" \
    --hostname-override "$name" --node-ip "$(node_ip "$i")" --root-dir "$d/kubelet" --cert-dir "$d/kubelet/pki" \
    --node-labels "bunlet.dev/node-host=$(node_ns "$i")" --v=2
}

start_node_proxy() {
  local i="$1" name d
  name="$(node_name "$i")" d="$(node_dir "$i")"
  cat >"$d/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $DIR/kube-proxy.kubeconfig
hostnameOverride: $name
mode: iptables
bindAddress: $(node_ip "$i")
clusterCIDR: $CLUSTER_CIDR
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# The conntrack table is the machine's: leave its sysctls alone.
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
nodePortAddresses: [primary]
EOF
  # shellcheck disable=SC2046
  start "kube-proxy-$name" $(enter_node "$i") "$K8S_BIN/kube-proxy" --config="$d/kube-proxy.yaml" --v=1
}

# bunlet's host-gw routes need every Node; a node's own credentials read only its own (docs/network.md).
grant_node_routes() {
  kubectl apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bunlet:node-routes
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: bunlet:node-routes
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: bunlet:node-routes
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: system:nodes
EOF
}

node_ready() { [ "$(kubectl get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }

# A route of the machine's to DESTINATION through a node, unless the machine routes it elsewhere
# already (another cluster's nodes): never replaced.
host_route() { # destination, node address
  local have
  have="$(ip -4 route show exact "$1" | grep -v " dev $NODE_BRIDGE " || true)"
  [ -z "$have" ] || die "this machine already routes $1 ($have); give this cluster other ranges (CLUSTER_CIDR, SERVICE_CLUSTER_IP_RANGE)"
  ip route replace "$1" via "$2" dev "$NODE_BRIDGE" proto "$NODE_ROUTE_PROTO"
}

# The machine's routes to each node's pod CIDR and to the Service range (through node 1, whose
# kube-proxy masquerades what comes from outside the cluster CIDR, so replies come back its way);
# on kubelet nodes also each node's routes to the others' pod CIDRs (bunlet keeps its own).
nodes_route() {
  local i j cidr
  for ((i = 1; i <= NODE_COUNT; i++)); do
    cidr="$(kubectl get node "$(node_name "$i")" -o jsonpath='{.spec.podCIDR}')"
    [ -n "$cidr" ] || die "node $(node_name "$i") has no spec.podCIDR (kube-controller-manager --allocate-node-cidrs)"
    host_route "$cidr" "$(node_ip "$i")"
    if [ "$NODE_KIND" = kubelet ]; then
      for ((j = 1; j <= NODE_COUNT; j++)); do
        [ "$j" = "$i" ] || in_node "$j" ip route replace "$cidr" via "$(node_ip "$i")" dev eth0
      done
    fi
  done
  host_route "$SERVICE_CLUSTER_IP_RANGE" "$(node_ip 1)"
}

nodes_up() {
  case "$NODE_KIND" in bunlet | kubelet) ;; *) die "--node-kind must be bunlet or kubelet, got '$NODE_KIND'" ;; esac
  command -v nsenter >/dev/null || die "nsenter is missing (util-linux)"
  command -v containerd >/dev/null && command -v ctr >/dev/null || die "containerd is missing (scripts/install-deps.sh installs it)"
  nodes_choose_network
  [ -z "${NODE_REGISTRY_PORT:-}" ] || NODE_REGISTRY="$NODE_GATEWAY:$NODE_REGISTRY_PORT"
  nodes_save_env
  nodes_make_network
  nodes_make_cgroups
  [ "$NODE_KIND" != bunlet ] || grant_node_routes
  local i name deadline
  for ((i = 1; i <= NODE_COUNT; i++)); do
    if [ "$NODE_KIND" = bunlet ]; then start_bunlet_node "$i"; else start_kubelet_node "$i"; fi
    start_node_proxy "$i"
  done
  deadline=$((SECONDS + ${NODE_READY_TIMEOUT:-300}))
  for ((i = 1; i <= NODE_COUNT; i++)); do
    name="$(node_name "$i")"
    until node_ready "$name"; do
      pid_of "node-$name" >/dev/null || die "node $name exited; the end of $LOGS/node-$name.log:
$(tail -n 20 "$LOGS/node-$name.log")"
      ((SECONDS < deadline)) || die "node $name not Ready after ${NODE_READY_TIMEOUT:-300}s; see $LOGS/node-$name.log"
      sleep 1
    done
  done
  nodes_route
  log "nodes: $(kubectl get nodes --no-headers -o custom-columns=N:.metadata.name,IP:.status.addresses[0].address,CIDR:.spec.podCIDR | tr -s ' ' | paste -sd ';' -) Ready"
}

# ---------------------------------------------------------------------------------------------
# load: an image archive onto every node, as `kind load image-archive`

nodes_load() {
  nodes_load_env
  ((NODE_COUNT > 0)) || die "$DIR has no node hosts (up --nodes N)"
  local archive i d sock
  for archive in "$@"; do
    [ -f "$archive" ] || die "no image archive $archive"
    for ((i = 1; i <= NODE_COUNT; i++)); do
      d="$(node_dir "$i")" sock="$(node_socket "$i")"
      # Kept in the node's images dir too: bunlet imports it again after a restart of its containerd.
      [ "$NODE_KIND" != bunlet ] || cp "$archive" "$d/root/images/"
      ctr --address "$sock" -n k8s.io images import "$archive" >/dev/null ||
        die "importing $archive into $(node_name "$i") (containerd $sock) failed"
      log "loaded $(basename "$archive") onto $(node_name "$i")"
    done
  done
}

# ---------------------------------------------------------------------------------------------
# down

# Every task of the node's containerd killed and deleted (runc's state with it), while the agent
# is stopped (SIGSTOP), so it does not start them again.
node_remove_tasks() {
  local sock="$1" id ctr=(ctr --address "$1" -n k8s.io)
  [ -S "$sock" ] && timeout 5 "${ctr[@]}" version >/dev/null 2>&1 || return 0
  for id in $(timeout 10 "${ctr[@]}" tasks ls -q 2>/dev/null); do
    timeout 20 "${ctr[@]}" tasks rm -f "$id" >/dev/null 2>&1 || true
  done
  for id in $(timeout 10 "${ctr[@]}" containers ls -q 2>/dev/null); do
    timeout 10 "${ctr[@]}" containers rm "$id" >/dev/null 2>&1 || true
  done
}

nodes_down() {
  nodes_load_env
  ((NODE_COUNT > 0)) || return 0
  local i m cg pid pids name
  for ((i = 1; i <= NODE_COUNT; i++)); do
    if pid="$(pid_of "node-$(node_name "$i")")"; then kill -STOP "$pid" 2>/dev/null; fi
  done
  for ((i = 1; i <= NODE_COUNT; i++)); do node_remove_tasks "$(node_socket "$i")"; done
  pids=()
  for ((i = 1; i <= NODE_COUNT; i++)); do
    name="$(node_name "$i")"
    for c in "node-$name" "kube-proxy-$name" "containerd-$name"; do
      if pid="$(pid_of "$c")"; then pids+=("$pid"); kill -CONT "$pid" 2>/dev/null; log "stopping $c (pid $pid)"; fi
      rm -f "$RUN/$c.pid"
    done
  done
  stop_pids "${pids[@]}"
  # What is left: processes in a namespace or cgroup root of ours (a container a runtime lost).
  for ((i = 1; i <= NODE_COUNT; i++)); do
    pids=($(ip netns pids "$(node_ns "$i")" 2>/dev/null))
    cg="$(node_cgroup "$i")"
    for m in $(cgroup_mounts); do
      [ -d "$m$cg" ] && pids+=($(find "$m$cg" -name cgroup.procs -exec cat {} + 2>/dev/null))
    done
    [ ${#pids[@]} -eq 0 ] || { log "killing the ${#pids[@]} processes left in node $(node_name "$i") (containerd, its shims, containers)"; kill -KILL "${pids[@]}" 2>/dev/null || true; }
  done
  # Leftovers naming DIR (containerd shims, an embedded containerd) go in cluster.sh's sweep,
  # which runs after this; the mounts wait for them.
  for pid in $(grep -alF -- "$DIR/nodes/" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
    [ "$pid" = $$ ] || kill -KILL "$pid" 2>/dev/null || true
  done
  sleep 0.5
  # runc's state of a container whose task could not be deleted (it lives outside DIR, under
  # runc's root): only those whose bundle is under DIR.
  local state
  for state in $(grep -lF -- "$DIR/nodes/" /run/containerd/runc/*/*/state.json 2>/dev/null); do
    runc --root "$(dirname "$(dirname "$state")")" delete -f "$(basename "$(dirname "$state")")" >/dev/null 2>&1 ||
      rm -rf "$(dirname "$state")"
  done
  { grep -o " $DIR/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  for ((i = 1; i <= NODE_COUNT; i++)); do
    ip netns del "$(node_ns "$i")" 2>/dev/null || true
    cg="$(node_cgroup "$i")"
    for m in $(cgroup_mounts); do
      [ ! -d "$m$cg" ] || find "$m$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
    done
  done
  ip link del "$NODE_BRIDGE" 2>/dev/null || true
  log "nodes: $NODE_COUNT node hosts removed (bridge $NODE_BRIDGE, namespaces $NODE_NS_PREFIX-*, cgroups $NODE_CGROUP_PREFIX-*)"
}
