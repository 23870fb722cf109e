# An existing-namespace tenant the worker refuses (the namespace is not marked external).

terraform {
  required_providers {
    occ = {
      source = "occ.local/openclaw/occ"
    }
  }
}

variable "existing_namespace" {
  type = string
}

resource "occ_namespace" "refused" {
  name               = "refused"
  existing_namespace = var.existing_namespace
}
