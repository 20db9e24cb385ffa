//go:build tools

// The upstream kubelet is built from this module too (only when a benchmark
// asks for it); this import keeps go mod tidy from dropping what it needs.
package main

import _ "k8s.io/kubernetes/cmd/kubelet"
