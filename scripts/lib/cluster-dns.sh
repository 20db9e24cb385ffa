# Sourced (bash): the cluster's DNS, the objects kubeadm v1.37's CoreDNS addon creates
# (cmd/kubeadm/app/phases/addons/dns/manifests.go and dns.go of k8s.io/kubernetes v1.37.2),
# rendered for a cluster DNS IP and domain, with the image scripts/k8s/build-coredns.sh makes.
#
#   source scripts/lib/cluster-dns.sh
#   dns_manifests DNS_IP DOMAIN        # print the objects (YAML, kubeadm's order)
#   dns_up KUBECTL_CMD DNS_IP DOMAIN   # apply them (server-side apply: again is a no-op/update)
#   dns_wait KUBECTL_CMD [SECONDS]     # wait for Deployment coredns to be Available (default
#                                      # 180 s); on a timeout, say what is missing and return 1
#
# KUBECTL_CMD is a command word list: a function name (`kubectl`) or a path with its flags
# (`"$K8S_BIN/kubectl --kubeconfig $DIR/admin.kubeconfig"`, split on spaces). DNS_IP is the
# kube-dns Service's clusterIP (inside the service CIDR; kubeadm takes the range's 10th address)
# and the nodes' --cluster-dns; DOMAIN is their --cluster-domain (cluster.local).
# DNS_IMAGE overrides the image (default registry.k8s.io/coredns/coredns:<the version in
# scripts/k8s/coredns/go.mod>). The image is never pulled (imagePullPolicy IfNotPresent, as
# kubeadm's): load coredns.tar onto every node first. Also runnable: `bash cluster-dns.sh IP DOMAIN`
# prints the objects. See docs/cluster-dns.md.

_dns_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

dns_image() {
  if [ -n "${DNS_IMAGE:-}" ]; then echo "$DNS_IMAGE"; return; fi
  local v
  v="$(awk '$1 == "require" && $2 == "github.com/coredns/coredns" { print $3 } $1 == "github.com/coredns/coredns" { print $2 }' \
    "$_dns_repo/scripts/k8s/coredns/go.mod" | head -1)"
  echo "registry.k8s.io/coredns/coredns:${v:?no github.com/coredns/coredns in scripts/k8s/coredns/go.mod}"
}

# Differences from kubeadm's text, none in the objects: its Service carries resourceVersion "0"
# for its own create-then-update calls (kubectl apply would send it as a precondition and fail
# on a second apply), and `replicas` is its default 2 (kubeadm keeps a running Deployment's count).
dns_manifests() {
  local ip="$1" domain="$2" image
  if ! [[ "$ip" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || "$ip" =~ ^[0-9a-fA-F:]+:[0-9a-fA-F:]*$ ]]; then
    echo "cluster-dns: DNS_IP must be an IP address (the kube-dns Service's clusterIP), got '$ip'" >&2; return 2
  fi
  if ! [[ "$domain" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]]; then
    echo "cluster-dns: DOMAIN must be a DNS domain (cluster.local), got '$domain'" >&2; return 2
  fi
  image="$(dns_image)" || return 1
  cat <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {
        errors
        health {
           lameduck 5s
        }
        ready
        kubernetes $domain in-addr.arpa ip6.arpa {
           pods insecure
           fallthrough in-addr.arpa ip6.arpa
           ttl 30
        }
        prometheus :9153
        forward . /etc/resolv.conf {
           max_concurrent 1000
        }
        cache 30 {
           disable success $domain
           disable denial $domain
        }
        loop
        reload
        loadbalance
    }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:coredns
rules:
- apiGroups:
  - ""
  resources:
  - endpoints
  - services
  - pods
  - namespaces
  verbs:
  - list
  - watch
- apiGroups:
  - discovery.k8s.io
  resources:
  - endpointslices
  verbs:
  - list
  - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:coredns
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:coredns
subjects:
- kind: ServiceAccount
  name: coredns
  namespace: kube-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: coredns
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  selector:
    matchLabels:
      k8s-app: kube-dns
  template:
    metadata:
      labels:
        k8s-app: kube-dns
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: coredns
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchExpressions:
                - key: k8s-app
                  operator: In
                  values: ["kube-dns"]
              topologyKey: kubernetes.io/hostname
      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: coredns
        image: $image
        imagePullPolicy: IfNotPresent
        resources:
          limits:
            memory: 170Mi
          requests:
            cpu: 100m
            memory: 70Mi
        args: [ "-conf", "/etc/coredns/Corefile" ]
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        ports:
        - containerPort: 53
          name: dns
          protocol: UDP
        - containerPort: 53
          name: dns-tcp
          protocol: TCP
        - containerPort: 9153
          name: metrics
          protocol: TCP
        - containerPort: 8080
          name: liveness-probe
          protocol: TCP
        - containerPort: 8181
          name: readiness-probe
          protocol: TCP
        livenessProbe:
          httpGet:
            path: /health
            port: liveness-probe
            scheme: HTTP
          initialDelaySeconds: 60
          timeoutSeconds: 5
          successThreshold: 1
          failureThreshold: 5
        readinessProbe:
          httpGet:
            path: /ready
            port: readiness-probe
            scheme: HTTP
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            add:
            - NET_BIND_SERVICE
            drop:
            - ALL
          readOnlyRootFilesystem: true
      dnsPolicy: Default
      volumes:
        - name: config-volume
          configMap:
            name: coredns
            items:
            - key: Corefile
              path: Corefile
---
apiVersion: v1
kind: Service
metadata:
  labels:
    k8s-app: kube-dns
    kubernetes.io/cluster-service: "true"
    kubernetes.io/name: "CoreDNS"
  name: kube-dns
  namespace: kube-system
  annotations:
    prometheus.io/port: "9153"
    prometheus.io/scrape: "true"
spec:
  clusterIP: $ip
  ports:
  - name: dns
    port: 53
    protocol: UDP
    targetPort: 53
  - name: dns-tcp
    port: 53
    protocol: TCP
    targetPort: 53
  - name: metrics
    port: 9153
    protocol: TCP
    targetPort: 9153
  selector:
    k8s-app: kube-dns
EOF
}

dns_up() {
  [ $# -eq 3 ] || { echo "cluster-dns: usage: dns_up KUBECTL_CMD DNS_IP DOMAIN" >&2; return 2; }
  local -a kubectl
  read -ra kubectl <<<"$1"
  local manifests
  manifests="$(dns_manifests "$2" "$3")" || return
  # Server-side apply: creates, or updates what differs (kubeadm's CreateOrUpdate); a clusterIP
  # that differs from a running kube-dns Service's is an error (the field is immutable).
  if ! "${kubectl[@]}" apply --server-side --force-conflicts --field-manager=bunlet-cluster-dns -f - <<<"$manifests" >/dev/null; then
    echo "cluster-dns: applying the CoreDNS objects (kube-system: ConfigMap/ServiceAccount/Deployment coredns, Service kube-dns $2; ClusterRole(Binding) system:coredns) failed" >&2
    return 1
  fi
  echo "cluster-dns: applied CoreDNS ($(dns_image)), Service kube-dns at $2, domain $3" >&2
}

dns_wait() {
  [ $# -ge 1 ] || { echo "cluster-dns: usage: dns_wait KUBECTL_CMD [SECONDS]" >&2; return 2; }
  local -a kubectl
  read -ra kubectl <<<"$1"
  local timeout="${2:-180}" start=$SECONDS available=""
  while [ $((SECONDS - start)) -lt "$timeout" ]; do
    available="$("${kubectl[@]}" -n kube-system get deployment coredns \
      -o 'jsonpath={.status.conditions[?(@.type=="Available")].status}' 2>/dev/null)" || available=""
    if [ "$available" = True ]; then
      echo "cluster-dns: Deployment kube-system/coredns is Available after $((SECONDS - start)) s" >&2
      return 0
    fi
    sleep 2
  done
  # (a subshell without errexit: a failing kubectl or an empty grep must not cut the report short)
  (set +e +o pipefail; _dns_explain "$timeout" "${kubectl[@]}") >&2
  return 1
}

# What stands between the Deployment and Available: its status, each pod's node, phase and the
# reason its container is not ready, the scheduler's and the kubelet's messages, the logs' tail.
_dns_explain() { # SECONDS KUBECTL...
  echo "cluster-dns: Deployment kube-system/coredns is not Available after $1 s"
  shift
  if ! "$@" -n kube-system get deployment coredns >/dev/null 2>&1; then
    echo "  the Deployment does not exist (did dns_up run against this cluster?)"
    return
  fi
  "$@" -n kube-system get deployment coredns -o \
    'jsonpath=  replicas: {.status.replicas} wanted, {.status.readyReplicas} ready, {.status.availableReplicas} available{"\n"}{range .status.conditions[*]}  condition {.type}={.status} {.reason}: {.message}{"\n"}{end}' 2>&1
  local pods
  pods="$("$@" -n kube-system get pods -l k8s-app=kube-dns -o \
    'jsonpath={range .items[*]}  pod {.metadata.name} on node "{.spec.nodeName}": {.status.phase}{range .status.conditions[?(@.status!="True")]}; {.type}: {.reason} {.message}{end}{range .status.containerStatuses[*]}; container ready={.ready} restarts={.restartCount} {.state.waiting.reason} {.state.waiting.message} (last exit: {.lastState.terminated.reason} {.lastState.terminated.exitCode}){end}{"\n"}{end}' 2>&1)"
  if [ -z "$pods" ]; then
    echo "  no coredns pods (is the controller-manager running? see the ReplicaSet's events below)"
  else
    echo "$pods"
  fi
  case "$pods" in
    *ErrImageNeverPull*|*ImagePull*|*ErrImagePull*)
      echo "  the image $(dns_image) is missing on a node: load coredns.tar from scripts/k8s/build-coredns.sh's cache dir (ctr -n k8s.io images import)" ;;
  esac
  case "$pods" in
    *'node ""'*) echo "  a pod has no node: are the nodes Ready and untainted? (kubectl get nodes)" ;;
  esac
  echo "  recent events:"
  "$@" -n kube-system get events --sort-by=.lastTimestamp -o \
    'jsonpath={range .items[?(@.involvedObject.name)]}{.involvedObject.kind}/{.involvedObject.name}: {.reason} {.message}{"\n"}{end}' 2>/dev/null |
    grep -E '^(Deployment/coredns|ReplicaSet/coredns|Pod/coredns)' | tail -8 | sed 's/^/    /'
  local pod
  for pod in $("$@" -n kube-system get pods -l k8s-app=kube-dns -o 'jsonpath={.items[*].metadata.name}' 2>/dev/null); do
    # CoreDNS says here why it exits: "Loop ... detected" (the node's resolv.conf names a local
    # resolver that forwards back), or an apiserver it cannot reach.
    local logs
    logs="$("$@" -n kube-system logs "$pod" --tail=5 2>&1)"
    # a container waiting to restart has no current log: its previous run's says why it exited
    [ -n "$logs" ] || logs="$("$@" -n kube-system logs "$pod" --previous --tail=5 2>&1)"
    echo "  logs of $pod (last 5 lines):"
    sed 's/^/    /' <<<"${logs:-(none)}"
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  [ $# -eq 2 ] || { echo "usage: $0 DNS_IP DOMAIN   (prints the CoreDNS objects)" >&2; exit 2; }
  dns_manifests "$1" "$2"
fi
