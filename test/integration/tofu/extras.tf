# Beside the seed-000 example in the acceptance test: every other resource and data source.

variable "principal_id" {
  type = string
}

variable "secret_value" {
  type      = string
  sensitive = true
}

resource "occ_secret" "model_key" {
  namespace_id  = occ_namespace.research.id
  name          = "model provider key"
  value         = var.secret_value
  value_version = 1
}

resource "occ_service_account" "model" {
  namespace_id         = occ_namespace.research.id
  name                 = "model provider"
  credential_kind      = "api_key"
  credential_secret_id = occ_secret.model_key.id
}

resource "occ_role" "reader" {
  name        = "configuration reader"
  description = "Reads Configurations."
  permissions = [{ action = "read", kind = "configuration" }]
}

resource "occ_binding" "reader" {
  principal_id = var.principal_id
  role_id      = occ_role.reader.id
  namespace_id = occ_namespace.research.id
}

data "occ_namespace" "support" {
  id = occ_namespace.support.id
}

data "occ_namespace_grants" "research" {
  namespace_id = occ_namespace.research.id
  depends_on   = [occ_binding.reader]
}
