//go:build tools

// metrics-server is built from its own module as released (sigs.k8s.io/metrics-server, pinned in
// go.mod); this import keeps go mod tidy from dropping it.
package tools

import _ "sigs.k8s.io/metrics-server/cmd/metrics-server"
