{{/*
Rules that span keys (values.schema.json checks shapes and types). Every refusal names the key
and the rule. Included once, by validate.yaml.
*/}}
{{- define "occ.validate" -}}
{{- $v := .Values -}}
{{- if include "occ.preprovisioned" . }}
{{- include "occ.validatePreprovisioned" . }}
{{- include "occ.validatePreprovisionedAuth" . }}
{{- end }}
{{- include "occ.validateAuth" . }}
{{- if and (not $v.admissionPolicies.enabled) (not $v.admissionPolicies.acknowledgeDisabled) }}
{{- fail "admissionPolicies.enabled: false removes the API server's enforcement of OCC's ownership (the worker and the API could then delete or change any namespace or object their RBAC reaches, and managed Namespaces wait for the RoleBindings of `occ namespaces grants`); set admissionPolicies.acknowledgeDisabled: true to install without them, or keep admissionPolicies.enabled: true (Kubernetes >= 1.30)" }}
{{- end }}
{{- range $i, $s := $v.admissionPolicies.extraSubjects }}
{{- if and (eq $s.kind "ServiceAccount") (not $s.namespace) }}
{{- fail (printf "admissionPolicies.extraSubjects[%d].namespace is required for a ServiceAccount" $i) }}
{{- end }}
{{- if and (eq $s.kind "User") $s.namespace }}
{{- fail (printf "admissionPolicies.extraSubjects[%d].namespace is not allowed for a User" $i) }}
{{- end }}
{{- end }}
{{- if $v.executionCluster.enabled }}
{{- fail "executionCluster.enabled: true is not supported by this release: OCC runs workloads only in the cluster it controls; set executionCluster.enabled: false" }}
{{- end }}
{{- if $v.openshellGit.enabled }}
{{- fail "openshellGit.enabled: true is not supported by this release: OCC has no OpenShell Git transport; set openshellGit.enabled: false (with preprovisionedNamespace, egressAuthority.enabled: true: the Credential Proxy)" }}
{{- end }}
{{- if and $v.openshell.enabled (not $v.openshell.endpoint) }}
{{- fail "openshell.endpoint is required when openshell.enabled is true (host:port of the OpenShell gateway)" }}
{{- end }}
{{- range $component := list "api" "worker" }}
{{- $c := index $v $component }}
{{- if and $c.podDisruptionBudget.enabled (gt (int $c.replicas) 0) (ge (int $c.podDisruptionBudget.minAvailable) (int $c.replicas)) }}
{{- fail (printf "%s.podDisruptionBudget.minAvailable (%d) must be below %s.replicas (%d): otherwise no %s pod may ever be evicted and every node drain hangs; raise %s.replicas or set %s.podDisruptionBudget.enabled: false" $component (int $c.podDisruptionBudget.minAvailable) $component (int $c.replicas) $component $component $component) }}
{{- end }}
{{- end }}
{{- if lt (int $v.api.terminationGracePeriodSeconds) (add (int $v.api.preStopSleepSeconds) 20) }}
{{- fail (printf "api.terminationGracePeriodSeconds (%d) must be at least api.preStopSleepSeconds (%d) + 20: after the preStop sleep, occ api may take up to its 20 s shutdown deadline to finish the requests in flight before the kubelet kills it; raise api.terminationGracePeriodSeconds or lower api.preStopSleepSeconds" (int $v.api.terminationGracePeriodSeconds) (int $v.api.preStopSleepSeconds)) }}
{{- end }}
{{- include "occ.validateTenantRequests" . }}
{{- include "occ.validateLabels" (list $v.network.dns.podLabels "network.dns.podLabels") }}
{{- range $i, $c := $v.network.gatewayClients }}
{{- include "occ.validateLabels" (list $c.podLabels (printf "network.gatewayClients[%d].podLabels" $i)) }}
{{- end }}
{{- if $v.egressAuthority.enabled }}
{{- include "occ.validateLabels" (list $v.egressAuthority.podLabels "egressAuthority.podLabels") }}
{{- end }}
{{- if $v.openshell.enabled }}
{{- include "occ.validateOpenshellGateway" . }}
{{- end }}
{{- if and $v.gatewayRouting.enabled (not $v.gatewayRouting.listener.tlsSecretName) }}
{{- fail "gatewayRouting.listener.tlsSecretName is required when gatewayRouting.enabled is true (the https listener's certificate)" }}
{{- end }}
{{- end -}}

{{/*
The preprovisioned profile (preprovisioned.md §6 and the seed's "Set the value"): exactly the
keys namespaceId and uid, a valid ID and a lowercase UUID, and the closed single-cluster
OpenShell profile: no execution cluster, gateway routing with a ClusterIP proxy Service, the
Credential Proxy (egress authority; the seed's alternative, openshellGit, is refused: this product
has no OpenShell Git transport) and OpenShell.
*/}}
{{- define "occ.validatePreprovisioned" -}}
{{- $v := .Values -}}
{{- $p := $v.preprovisionedNamespace -}}
{{- if not (kindIs "map" $p) }}
{{- fail "preprovisionedNamespace must be a map with exactly the keys namespaceId and uid" }}
{{- end }}
{{- range $key, $_ := $p }}
{{- if not (has $key (list "namespaceId" "uid")) }}
{{- fail (printf "preprovisionedNamespace.%s is not allowed: preprovisionedNamespace has exactly the keys namespaceId and uid" $key) }}
{{- end }}
{{- end }}
{{- $id := get $p "namespaceId" -}}
{{- if not (and (kindIs "string" $id) (regexMatch "^ns_[a-zA-Z0-9_-]{1,60}$" (toString $id))) }}
{{- fail "preprovisionedNamespace.namespaceId must match ^ns_[a-zA-Z0-9_-]{1,60}$ (an existing platform Namespace ID)" }}
{{- end }}
{{- $uid := get $p "uid" -}}
{{- $uuid := "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" -}}
{{- if not (and (kindIs "string" $uid) (regexMatch $uuid (toString $uid))) }}
{{- if and (kindIs "string" $uid) (regexMatch $uuid (lower (toString $uid))) }}
{{- fail "preprovisionedNamespace.uid must be a lowercase UUID, but it contains uppercase letters: copy metadata.uid exactly as Kubernetes reports it" }}
{{- end }}
{{- fail "preprovisionedNamespace.uid must be a lowercase UUID (the metadata.uid of the namespace you created)" }}
{{- end }}
{{- if $v.executionCluster.enabled }}
{{- fail "preprovisionedNamespace requires executionCluster.enabled: false" }}
{{- end }}
{{- if not $v.gatewayRouting.enabled }}
{{- fail "preprovisionedNamespace requires gatewayRouting.enabled: true" }}
{{- end }}
{{- if ne $v.gatewayRouting.serviceType "ClusterIP" }}
{{- fail (printf "preprovisionedNamespace requires gatewayRouting.serviceType: ClusterIP (not %s)" $v.gatewayRouting.serviceType) }}
{{- end }}
{{- if not $v.egressAuthority.enabled }}
{{- fail "preprovisionedNamespace requires egressAuthority.enabled: true or openshellGit.enabled: true; openshellGit is not supported by this release (OCC has no OpenShell Git transport), so set egressAuthority.enabled: true (the Credential Proxy)" }}
{{- end }}
{{- if not $v.openshell.enabled }}
{{- fail "preprovisionedNamespace requires openshell.enabled: true (an OpenShell backend for the OpenShell Sandbox Driver)" }}
{{- end }}
{{- end -}}

{{/*
The OpenShell operator-mode declaration, beyond what values.schema.json checks per manifest:
at least one namespace label, and no kind/name declared twice across both lists.
*/}}
{{- define "occ.validateOpenshellGateway" -}}
{{- $g := .Values.openshell.gateway -}}
{{- if not $g.operatorNamespaceLabels }}
{{- fail "openshell.gateway.operatorNamespaceLabels must have at least one entry when openshell.enabled is true" }}
{{- end }}
{{- include "occ.validateLabels" (list $g.operatorNamespaceLabels "openshell.gateway.operatorNamespaceLabels") }}
{{- $seen := dict -}}
{{- range $field := list "operatorWorkspaceResources" "networkPolicyResources" }}
{{- range $i, $m := (get $g $field) }}
{{- $id := printf "%s/%s" $m.kind $m.metadata.name -}}
{{- if hasKey $seen $id }}
{{- fail (printf "openshell.gateway.%s[%d] declares %s a second time" $field $i $id) }}
{{- end }}
{{- $_ := set $seen $id true -}}
{{- if and (eq $m.kind "NetworkPolicy") (kindIs "map" $m.spec) }}
{{- include "occ.validateEmptyDirections" (list $m.spec (printf "openshell.gateway.%s[%d]" $field $i)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
A declared NetworkPolicy with an empty ingress/egress list for a direction its policyTypes does
not explicitly list: the API server stores that list as absent, so the declaration could never
match what is stored (the namespace would stay degraded, or be rewritten on every pass). The
same rule and words as the Installation configuration (src/config/openshell-settings.ts).
Argument: (list spec key).
*/}}
{{- define "occ.validateEmptyDirections" -}}
{{- $spec := index . 0 -}}
{{- $key := index . 1 -}}
{{- $listed := list -}}
{{- if kindIs "slice" $spec.policyTypes }}{{- $listed = $spec.policyTypes -}}{{- end }}
{{- range $d := list (list "ingress" "Ingress") (list "egress" "Egress") }}
{{- $name := index $d 0 -}}
{{- $type := index $d 1 -}}
{{- $rules := get $spec $name -}}
{{- if and (kindIs "slice" $rules) (eq (len $rules) 0) (not (has $type $listed)) }}
{{- fail (printf "%s.spec.%s is an empty list but %s.spec.policyTypes does not list %s: the API server stores it as absent, so the declaration can never match; remove %s, or add %s to policyTypes" $key $name $key $type $name $type) }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
A Kubernetes quantity (already matched by the schema's pattern) as a float, for comparisons.
*/}}
{{- define "occ.quantityFloat" -}}
{{- $q := toString . -}}
{{- $number := regexFind "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)" $q -}}
{{- $rest := trimPrefix $number $q -}}
{{- $factors := dict "" 1.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "Pi" 1125899906842624.0 "Ei" 1152921504606846976.0 "n" 0.000000001 "u" 0.000001 "m" 0.001 "k" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 "P" 1000000000000000.0 "E" 1000000000000000000.0 -}}
{{- $value := float64 $number -}}
{{- if hasKey $factors $rest }}
{{- $value = mulf $value (get $factors $rest) -}}
{{- else }}
{{- $exp := int (trimPrefix "e" (trimPrefix "E" $rest)) -}}
{{- range until (int (max $exp (mul -1 $exp))) }}
{{- $value = ternary (mulf $value 10.0) (divf $value 10.0) (gt $exp 0) -}}
{{- end }}
{{- end }}
{{- $value -}}
{{- end -}}

{{/* Each tenant container request must not exceed its limit (compared as quantities). */}}
{{- define "occ.validateTenantRequests" -}}
{{- $r := .Values.tenantResources -}}
{{- range $resource := list "cpu" "memory" }}
{{- $request := get $r.requests $resource -}}
{{- $limit := get $r.limits $resource -}}
{{- /* Floats: a relative margin keeps equal amounts in different notations equal. */ -}}
{{- if gt (float64 (include "occ.quantityFloat" $request)) (mulf (float64 (include "occ.quantityFloat" $limit)) 1.000000001) }}
{{- fail (printf "tenantResources.requests.%s (%s) must not exceed tenantResources.limits.%s (%s)" $resource $request $resource $limit) }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Label keys and values, as Kubernetes (and the controller) require them. Called with
(list $map "<values key>").
*/}}
{{- define "occ.validateLabels" -}}
{{- $key := index . 1 -}}
{{- range $k, $val := (index . 0) }}
{{- $keyOk := regexMatch "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$" $k -}}
{{- $prefixOk := or (not (contains "/" $k)) (le (len (first (splitList "/" $k))) 253) -}}
{{- $valueOk := and (kindIs "string" $val) (regexMatch "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$" (toString $val)) -}}
{{- if not (and $keyOk $prefixOk $valueOk) }}
{{- fail (printf "%s.%s is not a valid Kubernetes label key and value (a quoted string)" $key $k) }}
{{- end }}
{{- end }}
{{- end -}}
