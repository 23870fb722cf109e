# Seed 000 (existing Kubernetes namespace placement): one tenant in a managed namespace OCC
# creates, one in an operator-owned namespace it adopts, each with its agent Configuration.
# The endpoint and API key come from OCC_ENDPOINT and OCC_API_KEY (an administrator's key:
# adopting an existing namespace needs Installation-level administer).

terraform {
  required_providers {
    occ = {
      source = "occ.local/openclaw/occ"
    }
  }
}

provider "occ" {}

variable "existing_namespace" {
  description = "The operator-prepared Kubernetes namespace the support tenant adopts."
  type        = string
  default     = "customer-support-prod"
}

# Managed placement: OCC creates oce-<hash15> and deletes it with the tenant.
resource "occ_namespace" "research" {
  name = "research"
}

# External placement: OCC verifies and binds the namespace; deleting the tenant keeps it.
resource "occ_namespace" "support" {
  name               = "support"
  existing_namespace = var.existing_namespace
}

resource "occ_configuration" "research_agent" {
  namespace_id = occ_namespace.research.id
  values       = jsonencode({ model = "default", temperature = 0.2 })
}

resource "occ_configuration" "support_agent" {
  namespace_id = occ_namespace.support.id
  values       = jsonencode({ model = "default", temperature = 0.5, tools = ["search"] })
}

output "research_namespace" {
  value = occ_namespace.research.kubernetes_namespace
}

output "support_namespace" {
  value = occ_namespace.support.kubernetes_namespace
}
