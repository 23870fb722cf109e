// Command etcd is the real etcd server, built from the version the pinned
// Kubernetes release requires. It only forwards to etcd's own entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
