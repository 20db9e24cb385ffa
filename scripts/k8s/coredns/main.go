// CoreDNS (github.com/coredns/coredns, the release pinned in go.mod) with only the plugins a
// cluster's DNS needs: the ones kubeadm's Corefile names, plus log, hosts and whoami for
// debugging. CoreDNS's own main imports core/plugin (every plugin, with their cloud SDKs); this
// one imports its plugins by hand and sets dnsserver.Directives to them, in the execution order
// of the release's plugin.cfg (core/dnsserver/zdirectives.go): a plugin sees only what the
// plugins after it in this list do.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/whoami"
)

// directives is plugin.cfg's order with everything this build leaves out removed. The names are
// directive names: the metrics package's directive is "prometheus".
var directives = []string{
	"reload",
	"ready",
	"health",
	"prometheus",
	"errors",
	"log",
	"loadbalance",
	"cache",
	"hosts",
	"kubernetes",
	"loop",
	"forward",
	"whoami",
}

func main() {
	// Before coremain.Run: the server type reads Directives when it parses the Corefile.
	if err := dnsserver.SetDirectives(directives); err != nil {
		panic(err)
	}
	coremain.Run()
}
