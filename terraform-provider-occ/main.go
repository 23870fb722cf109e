// Command terraform-provider-occ is the OpenTofu / Terraform provider for the OCC control
// plane API: tenants (Namespaces), their Configurations, Secrets and ServiceAccounts, and IAM
// roles and bindings.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"occ.local/terraform-provider-occ/internal/provider"
)

// Address is the provider's source address; a configuration names it in required_providers.
const Address = "occ.local/openclaw/occ"

// version is stamped at build time (-X main.version=…).
var version = "dev"

func main() {
	debug := flag.Bool("debug", false, "run with support for debuggers like delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: Address,
		Debug:   *debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
