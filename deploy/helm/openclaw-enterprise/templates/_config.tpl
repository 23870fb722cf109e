{{/*
The Installation configuration document (src/config/installation-schema.ts) rendered from
values. The chart always selects the bundled Kubernetes Drivers; the Sandbox Driver is OpenShell
when openshell.enabled.
*/}}
{{- define "occ.installationConfig" -}}
{{- $v := .Values -}}
{{- $network := dict "dns" $v.network.dns "gatewayPort" $v.network.gatewayPort "gatewayClients" $v.network.gatewayClients -}}
{{- if $v.gatewayRouting.enabled }}
{{- $_ := set $network "gatewayRouting" (dict "gatewayNamespace" .Release.Namespace "gatewayName" $v.gatewayRouting.gatewayName "envoyNamespace" $v.gatewayRouting.envoyNamespace) -}}
{{- end }}
{{- if $v.egressAuthority.enabled }}
{{- $_ := set $network "egressAuthority" (dict "namespace" $v.egressAuthority.namespace "podLabels" $v.egressAuthority.podLabels "port" $v.egressAuthority.port "service" $v.egressAuthority.service) -}}
{{- end }}
{{- $doc := dict
  "drivers" (dict "compute" "kubernetes" "configuration" "kubernetes" "secret" "kubernetes" "sandbox" (ternary "openshell" "none" $v.openshell.enabled))
  "kubernetes" (dict "controllerNamespace" .Release.Namespace "requestTimeoutMs" $v.kubernetesApi.requestTimeoutMs "rateLimit" $v.kubernetesApi.rateLimit)
  "resources" (dict "namespace" (dict "quota" $v.tenantResources.quota "limits" $v.tenantResources.limits "requests" $v.tenantResources.requests))
  "network" $network
  "executionCluster" (dict "enabled" $v.executionCluster.enabled)
  "worker" $v.worker.queue
-}}
{{- if and $v.admissionPolicies.enabled (not (include "occ.preprovisioned" .)) }}
{{- $sa := dict "worker" (dict "kind" "ServiceAccount" "name" $v.worker.serviceAccountName "namespace" .Release.Namespace) "api" (dict "kind" "ServiceAccount" "name" $v.api.serviceAccountName "namespace" .Release.Namespace) -}}
{{- $_ := set (get $doc "kubernetes") "tenantRoleBindings" $sa -}}
{{- end }}
{{- if $v.workloads }}
{{- $_ := set $doc "workloads" $v.workloads -}}
{{- end }}
{{- if $v.openshell.enabled }}
{{- $os := dict "endpoint" $v.openshell.endpoint "requestTimeoutMs" $v.openshell.requestTimeoutMs -}}
{{- if $v.openshell.tls.secretName }}
{{- $_ := set $os "tlsRootFile" (printf "/etc/occ/openshell/tls/%s" $v.openshell.tls.key) -}}
{{- end }}
{{- if $v.openshell.token.secretName }}
{{- $_ := set $os "tokenFile" (printf "/etc/occ/openshell/token/%s" $v.openshell.token.key) -}}
{{- end }}
{{- $g := $v.openshell.gateway -}}
{{- $_ := set $os "gateway" (dict "workspaceMode" "operator" "operatorNamespaceLabels" $g.operatorNamespaceLabels "operatorWorkspaceResources" $g.operatorWorkspaceResources "networkPolicyResources" $g.networkPolicyResources) -}}
{{- $_ := set $doc "openshell" $os -}}
{{- end }}
{{- include "occ.setAuthConfig" (dict "root" . "doc" $doc) }}
{{- toYaml $doc -}}
{{- end -}}
